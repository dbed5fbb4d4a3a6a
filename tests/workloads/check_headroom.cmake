# cmake -DKERNELGATE=<binary> -DSUITES=<folder> -DWORKLOAD=<id> -DCANDIDATES=<a,b> -DAXES=<k=v,...>
#       -DBEYOND=<k=v,...> -DMIN_HEADROOM=<x> -DOUT=<folder> -P check_headroom.cmake
#
# FP32-labelled tensor-core candidates at the longest accumulation they accept
# (AXES, over the ci preset), in interpret mode's default tensor-core
# arithmetic (the H100's): each must pass with at least MIN_HEADROOM under
# the fp32 bounds (kernels/common/fp32_accumulation.cuh). One step beyond
# (BEYOND), each must say it is not supported. One thread order: the
# arithmetic, not the order, sets the error (the workload tests run both).
cmake_minimum_required(VERSION 3.20)

foreach(var KERNELGATE SUITES WORKLOAD CANDIDATES AXES BEYOND MIN_HEADROOM OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_headroom.cmake: -D${var}= is missing")
  endif()
endforeach()

function(run_at axes folder)
  file(REMOVE_RECURSE ${folder})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=KG_INTERPRET_TENSOR_CORES
            ${KERNELGATE} run --workload ${WORKLOAD} --suites ${SUITES} --allow-empty-baselines
            --device cpu --preset ci --axes ${axes}
            --candidates ${CANDIDATES} --orders forward --protocol none --report-dir ${folder} --quiet
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "kernelgate run at ${axes} exited ${status}:\n${output}")
  endif()
  file(READ ${folder}/${WORKLOAD}.cpu.json content)
  set(report "${content}" PARENT_SCOPE)
endfunction()

string(REPLACE "," ";" wanted "${CANDIDATES}")

run_at(${AXES} ${OUT}/at-limit)
string(JSON arithmetic GET "${report}" environment tensor_cores)
if(NOT arithmetic STREQUAL "hopper")
  message(FATAL_ERROR "the run used tensor-core arithmetic '${arithmetic}', not hopper")
endif()
string(JSON count LENGTH "${report}" candidates)
set(seen)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON id GET "${report}" candidates ${i} id)
  string(JSON outcome GET "${report}" candidates ${i} outcome)
  string(JSON headroom GET "${report}" candidates ${i} error headroom)
  list(APPEND seen ${id})
  if(NOT outcome STREQUAL "passed")
    message(FATAL_ERROR "${id} at ${AXES}: ${outcome}, not passed")
  endif()
  if(NOT headroom STREQUAL "Infinity" AND headroom LESS ${MIN_HEADROOM})
    message(FATAL_ERROR "${id} at ${AXES}: headroom ${headroom} under the fp32 bounds, below ${MIN_HEADROOM}")
  endif()
  message(STATUS "${id} at ${AXES}: headroom ${headroom}")
endforeach()
foreach(id IN LISTS wanted)
  if(NOT id IN_LIST seen)
    message(FATAL_ERROR "${id} is not in the report of the run at ${AXES}")
  endif()
endforeach()

run_at(${BEYOND} ${OUT}/beyond)
foreach(i RANGE ${last})
  string(JSON id GET "${report}" candidates ${i} id)
  string(JSON outcome GET "${report}" candidates ${i} outcome)
  if(NOT outcome STREQUAL "not_supported")
    message(FATAL_ERROR "${id} at ${BEYOND}: ${outcome}; beyond its accumulation limit it must be not_supported")
  endif()
endforeach()
