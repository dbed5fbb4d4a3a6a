# Runs kernelgate-adversarial on the adversarial candidates plus the real
# direct_fp32 candidate and asserts each outcome (runner results, before the
# gate), that the JSON report on stdout parses, and the exit code.
# -DKERNELGATE=<binary> -DDEVICE=cpu|cuda -DWORK_DIR=<scratch folder>
cmake_minimum_required(VERSION 3.25)

set(workload l1_086_conv_depthwise_separable_2d)
# candidate id -> expected outcome[:contract rule]
set(expected
  "writes_half=contract_violation:output_fully_written"
  "mutates_input=contract_violation:inputs_unchanged"
  "writes_past_end=contract_violation:guard_bands"
  "replays_previous=contract_violation:fresh_inputs"
  "ignores_stream=contract_violation:launch_stream"
  "writes_nan=incorrect"
  "wrong_by_one=incorrect"
  "segfaults=crashed"
  "aborts=crashed"
  "loops_forever=timed_out"
  "direct_fp32=passed")

set(ids "")
foreach(entry IN LISTS expected)
  string(REGEX REPLACE "=.*" "" id "${entry}")
  list(APPEND ids ${id})
endforeach()
list(JOIN ids "," id_list)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/baselines)  # empty: the real candidate is `new`
# The watchdog covers a child's whole life: on a GPU that includes creating
# the CUDA context and starting the stream audit, so it gets more time there.
# No timing: the outcomes are what is asserted.
if(DEVICE STREQUAL "cpu")
  set(child_timeout 5)
else()
  set(child_timeout 30)
endif()
execute_process(
  COMMAND ${KERNELGATE} run --workload ${workload} --device ${DEVICE} --preset ci
          --axes batch=1,in_channels=4,out_channels=8 --timeout ${child_timeout} --protocol none
          --candidates ${id_list}
          --baselines ${WORK_DIR}/baselines --report-dir ${WORK_DIR}/reports
          --results ${WORK_DIR}/results.json --json
  RESULT_VARIABLE exit_code
  OUTPUT_VARIABLE json_report
  ERROR_VARIABLE progress)
message(STATUS "progress:\n${progress}")
if(exit_code EQUAL 77)
  message(STATUS "kernelgate: skipped: no device")
  return()
endif()
if(NOT exit_code EQUAL 1)
  message(FATAL_ERROR "expected exit code 1 (candidates failed), got ${exit_code}")
endif()
string(JSON report_type ERROR_VARIABLE json_error TYPE "${json_report}")
if(json_error OR NOT report_type STREQUAL "OBJECT")
  message(FATAL_ERROR "--json did not print a JSON object on stdout: ${json_error}\n${json_report}")
endif()

file(READ ${WORK_DIR}/results.json results)
string(JSON candidate_count LENGTH "${results}" 0 candidates)
set(failures "")
foreach(entry IN LISTS expected)
  string(REGEX MATCH "^([^=]+)=([^:]+):?(.*)$" _ "${entry}")
  set(id ${CMAKE_MATCH_1})
  set(want_outcome ${CMAKE_MATCH_2})
  set(want_rule "${CMAKE_MATCH_3}")
  set(found FALSE)
  math(EXPR last "${candidate_count} - 1")
  foreach(i RANGE ${last})
    string(JSON candidate_id GET "${results}" 0 candidates ${i} id)
    if(NOT candidate_id STREQUAL id)
      continue()
    endif()
    set(found TRUE)
    string(JSON outcome GET "${results}" 0 candidates ${i} outcome)
    string(JSON message GET "${results}" 0 candidates ${i} message)
    if(NOT outcome STREQUAL want_outcome)
      string(APPEND failures "\n  ${id}: expected ${want_outcome}, got ${outcome}: ${message}")
    elseif(want_rule AND NOT message MATCHES "^${want_rule}: ")
      string(APPEND failures "\n  ${id}: expected rule ${want_rule}, got: ${message}")
    endif()
  endforeach()
  if(NOT found)
    string(APPEND failures "\n  ${id}: missing from the results")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "adversarial outcomes differ:${failures}")
endif()
message(STATUS "every adversarial candidate got its outcome; the real candidate passed")
