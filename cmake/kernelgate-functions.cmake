# The functions that build candidates into a kernelgate binary and register a
# folder of suites as CTest cases (docs/consumer.md). One file for kernelgate's
# own tree and for a team's project: kernelgate's CMakeLists.txt includes it,
# and the installed package loads it from kernelgateConfig.cmake, so both
# build candidates with the same flags and register the same tests.
#
# The calls name kernelgate's targets by their kernelgate:: names (aliases in
# the tree, imported targets from the package), and read the build kind from
# KERNELGATE_GPU and KERNELGATE_INTERPRET_SANITIZE (cache options in the tree,
# set by kernelgateConfig.cmake from the installed build).
include_guard(GLOBAL)

# CTest's SKIP_RETURN_CODE for the GPU tests: kg::kSkipExitCode
# (kernelgate/detail/conclude.hpp). In the cache, so that it is seen from every
# directory, also when kernelgate is a FetchContent subproject.
set(KERNELGATE_SKIP_EXIT_CODE 77 CACHE INTERNAL "exit code of a skipped kernelgate test")

# The CTest labels of the GPUs kernelgate knows, one per GPU whatever its
# board (the labels of the hardware table, kernelgate/detail/hardware.hpp; h100 is
# the SXM, PCIe and NVL boards, each gated against its own baselines): a GPU
# runner runs `ctest -L <label>` or `ctest --preset <label>`. A test checks
# that this list, the table and CMakePresets.json agree.
set(KERNELGATE_GPU_LABELS a100 l40s h100 h200 gh200 b200 gb200)

# kernelgate_count_accesses(<target>): the target's kernels report their loads
# and stores to interpret mode's counters (kernelgate/interpret/counters.hpp):
# GCC's thread-sanitizer instrumentation calls a function at each access, and
# kg_interpret supplies those functions instead of the sanitizer's runtime
# (nothing links it). No vectorising: a lane's loads keep the widths the
# source gives them, as under nvcc. Not with the address sanitizer, which
# cannot be combined with it: the memory counters then stay zero.
function(kernelgate_count_accesses target)
  if(NOT KERNELGATE_INTERPRET_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=thread --param=tsan-instrument-func-entry-exit=0
                           -fno-tree-vectorize)
    target_compile_definitions(${target} PRIVATE KG_COUNTS_ACCESSES=1)
  endif()
endfunction()

# kernelgate_candidate_library(<target> <folder>...): every <folder>/<workload>/*.cu
# (folder "common" excluded) as one object library, each file compiled with
# the workload and candidate id its path names; each folder is also an
# include directory. The same .cu source is compiled by nvcc in the gpu build
# and as C++ against the interpret-mode runtime in the cpu build.
function(kernelgate_candidate_library target)
  set(sources)
  foreach(folder IN LISTS ARGN)
    if(NOT IS_DIRECTORY ${folder})
      message(FATAL_ERROR "kernelgate: candidate folder ${folder} does not exist")
    endif()
    file(GLOB found CONFIGURE_DEPENDS ${folder}/*/*.cu)
    # Only <folder>/common/ itself holds shared headers; a "common" higher up
    # in the path (a checkout under .../common/...) must not hide anything.
    foreach(source IN LISTS found)
      file(RELATIVE_PATH relative ${folder} ${source})
      if(NOT relative MATCHES "^common/")
        list(APPEND sources ${source})
      endif()
    endforeach()
  endforeach()
  if(NOT sources)
    message(FATAL_ERROR "kernelgate: no candidate (<folder>/<workload>/*.cu) in ${ARGN}")
  endif()
  add_library(${target} OBJECT ${sources})
  # The path names the candidate: <folder>/<workload>/<id>.cu registers
  # workload and id without writing them again (kernelgate/candidate.hpp).
  foreach(source IN LISTS sources)
    get_filename_component(id ${source} NAME_WE)
    get_filename_component(workload_dir ${source} DIRECTORY)
    get_filename_component(workload ${workload_dir} NAME)
    set_property(SOURCE ${source} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_DEFINITIONS
                 "KG_CANDIDATE_WORKLOAD=\"${workload}\"" "KG_CANDIDATE_ID=\"${id}\"")
  endforeach()
  # Each folder is an include root, so a candidate reaches its folder's
  # common/ headers as "common/x.cuh".
  target_include_directories(${target} PRIVATE ${ARGN})
  target_link_libraries(${target} PUBLIC kernelgate::runner)
  set(scripts ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  if(KERNELGATE_GPU)
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "kernelgate: this is a gpu build of kernelgate; enable CUDA in the project "
                          "(project(... LANGUAGES CXX CUDA)) before adding candidates")
    endif()
    if(DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set_target_properties(${target} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON)
    else()
      # CMake 3.25 does not know nvcc's C++20 flag (kernelgate's own
      # CMakeLists.txt teaches it; a team's project need not).
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
    endif()
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v --expt-relaxed-constexpr -lineinfo>)
    if(KERNELGATE_CUDA_ARCHITECTURES)
      # Set by the package: the architectures the installed kernelgate was
      # built for, so the project's candidates run on the same GPUs.
      set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${KERNELGATE_CUDA_ARCHITECTURES}")
    endif()
    kernelgate_narrow_compile_check(${target} "${sources}")
    # ptxas repairs some wgmma misuse silently and serializes wgmmas it cannot
    # order (notices C7510 to C7520): in a candidate these fail the build.
    set_target_properties(${target} PROPERTIES CUDA_COMPILER_LAUNCHER ${scripts}/fail_on_ptxas_notices.sh)
  else()
    # Same source, compiled as C++: no FMA contraction, so the CPU does what
    # the source says (docs/interpret-mode.md).
    set_source_files_properties(${sources} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX)
    target_compile_options(${target} PRIVATE -x c++ -ffp-contract=off)
    # Every candidate parses the same standard headers and interpret-mode
    # runtime through kernelgate/candidate.hpp, most of its compile time:
    # precompiled once per library of several candidates (the shipped 27
    # and the 23 adversarial ones: 63 to 38 s of compiler time). Only
    # headers that read no per-candidate macro (KG_CANDIDATE_ID and
    # KG_CANDIDATE_WORKLOAD, which candidate.hpp tests), so one
    # precompiled header serves every source.
    list(LENGTH sources source_count)
    if(source_count GREATER 3)
      target_precompile_headers(${target} PRIVATE <functional> <map> <string> <vector>
                                <kernelgate/interpret/runtime.hpp>)
    endif()
    kernelgate_count_accesses(${target})
    # Each folder's resources.json (ptxas's registers of its kernels in the
    # gpu build, from ci/kernel-resources.sh) is compiled in for the model's
    # occupancy (kernelgate/candidate.hpp, KernelResourcesRegistrar).
    set(index 0)
    foreach(folder IN LISTS ARGN)
      if(EXISTS ${folder}/resources.json)
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${folder}/resources.json)
        file(READ ${folder}/resources.json resources_json)
        string(JSON resources_kind ERROR_VARIABLE resources_error GET "${resources_json}" kind)
        if(resources_error OR NOT resources_kind STREQUAL "kernelgate-kernel-resources")
          message(FATAL_ERROR "${folder}/resources.json: not a kernelgate-kernel-resources file "
                              "(${resources_error}); regenerate it with ci/kernel-resources.sh")
        endif()
        set(generated ${CMAKE_CURRENT_BINARY_DIR}/${target}_resources_${index}.cpp)
        file(CONFIGURE OUTPUT ${generated} @ONLY CONTENT [=[
// Generated from @folder@/resources.json by kernelgate_candidate_library().
#include "kernelgate/candidate.hpp"
static const ::kg::KernelResourcesRegistrar kg_kernel_resources{R"kg_resources(@resources_json@)kg_resources",
                                                                 "@folder@/resources.json"};
]=])
        target_sources(${target} PRIVATE ${generated})
        math(EXPR index "${index} + 1")
      endif()
    endforeach()
    # A static __shared__ array that interpret mode cannot poison per block
    # (in a template or inline function) fails the compile.
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER ${scripts}/fail_on_unpoisoned_shared.sh)
  endif()
endfunction()

# kernelgate_narrow_compile_check(<target> <sources>): in a compile-only
# build that sets KERNELGATE_COMPILE_CHECK_ARCHITECTURES (the gpu-check
# preset), the target's candidates compile for those architectures only,
# except the direct_*.cu ones, which keep every architecture of the build:
# each architecture of the list is still compiled and linked, at a fraction
# of the time (docs/gpu-runner.md, "Architectures"). Nothing otherwise.
function(kernelgate_narrow_compile_check target sources)
  if(NOT KERNELGATE_COMPILE_CHECK_ARCHITECTURES)
    return()
  endif()
  get_target_property(every ${target} CUDA_ARCHITECTURES)
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${KERNELGATE_COMPILE_CHECK_ARCHITECTURES}")
  set(extra)
  foreach(architecture IN LISTS every)
    if(NOT architecture IN_LIST KERNELGATE_COMPILE_CHECK_ARCHITECTURES)
      # The form CMake gives a plain entry: machine code and its PTX.
      list(APPEND extra "--generate-code=arch=compute_${architecture},code=[compute_${architecture},sm_${architecture}]")
    endif()
  endforeach()
  foreach(source IN LISTS sources)
    get_filename_component(name ${source} NAME)
    if(extra AND name MATCHES "^direct")
      set_property(SOURCE ${source} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${extra})
    endif()
  endforeach()
endfunction()

# kernelgate_cli(<target> <candidate object library>...): the kernelgate CLI,
# every subcommand, with those candidates linked in as object files: the
# static registrations of both (each command, each candidate) must stay, which
# an archive's unreferenced members would not.
function(kernelgate_cli target)
  add_executable(${target})
  target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,kernelgate::cli>" ${ARGN})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()

# kernelgate_add_candidates(<name> DIRS <folder>...): a kernelgate binary of the
# project's own, <build>/bin/<name>, holding the candidates of those folders
# (each laid out like kernelgate's kernels/: <folder>/<workload>/<candidate>.cu,
# shared headers in <folder>/common/) and no other.
function(kernelgate_add_candidates name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DIRS")
  if(NOT arg_DIRS OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kernelgate_add_candidates(${name} DIRS <folder>...): "
                        "give the candidate folders after DIRS (${arg_UNPARSED_ARGUMENTS})")
  endif()
  set(folders)
  foreach(folder IN LISTS arg_DIRS)
    get_filename_component(folder ${folder} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND folders ${folder})
  endforeach()
  kernelgate_candidate_library(${name}_candidates ${folders})
  kernelgate_cli(${name} ${name}_candidates)
  set_property(GLOBAL PROPERTY KERNELGATE_LAST_CANDIDATES_BINARY ${name})
endfunction()

# kernelgate_add_suites(DIRS <folder>... BASELINES <folder> [CANDIDATES <binary>]
#                       [REPORT_DIR <folder>] [PRESET <preset>])
# One CTest case per workload and label, named <workload>.<label>, for every
# suite file (*.json, searched recursively) of the folders (docs/ctest.md):
#   cpu build: <workload>.cpu, every candidate of the binary in interpret mode
#              at the preset (default `ci`), counted and gated on its counters
#              against <BASELINES>/<workload>/cpu.json;
#   gpu build: <workload>.<label> at full size for each GPU label of
#              KERNELGATE_GPU_LABELS (h100, b200, ...), each holding one GPU
#              of the runner's resource spec (RESOURCE_GROUPS gpus:1).
# Labels: cpu, or the GPU's label and gpu; level<N> for a KernelBench id l<N>_...;
# conv for a convolution. Exit code 77 is a skip (no GPU, or a GPU of another
# class than the label, unless KERNELGATE_REQUIRE_GPU=1). The binary is the
# last one kernelgate_add_candidates() made unless CANDIDATES names one.
# Each test writes its reports to REPORT_DIR (default <build>/kernelgate-reports)
# and sets up the fixture kernelgate_reports_<label> for checks of them.
function(kernelgate_add_suites)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "BASELINES;CANDIDATES;REPORT_DIR;PRESET" "DIRS")
  if(NOT arg_DIRS OR NOT arg_BASELINES OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kernelgate_add_suites(DIRS <folder>... BASELINES <folder> [CANDIDATES <binary>] "
                        "[REPORT_DIR <folder>] [PRESET <preset>]): ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_CANDIDATES)
    get_property(arg_CANDIDATES GLOBAL PROPERTY KERNELGATE_LAST_CANDIDATES_BINARY)
  endif()
  if(NOT arg_CANDIDATES OR NOT TARGET ${arg_CANDIDATES})
    message(FATAL_ERROR "kernelgate_add_suites: no candidates binary '${arg_CANDIDATES}': call "
                        "kernelgate_add_candidates() first or name one with CANDIDATES")
  endif()
  if(NOT arg_REPORT_DIR)
    set(arg_REPORT_DIR ${CMAKE_BINARY_DIR}/kernelgate-reports)
  endif()
  if(NOT arg_PRESET)
    set(arg_PRESET ci)
  endif()
  get_filename_component(baselines ${arg_BASELINES} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT IS_DIRECTORY ${baselines})
    message(FATAL_ERROR "kernelgate_add_suites: baselines folder ${baselines} does not exist")
  endif()
  foreach(folder IN LISTS arg_DIRS)
    get_filename_component(suites ${folder} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    file(GLOB_RECURSE suite_files CONFIGURE_DEPENDS ${suites}/*.json)
    if(NOT suite_files)
      message(FATAL_ERROR "kernelgate_add_suites: no suite file (*.json) in ${suites}")
    endif()
    foreach(suite_file IN LISTS suite_files)
      file(READ ${suite_file} suite_json)
      string(JSON workload ERROR_VARIABLE id_error GET "${suite_json}" id)
      if(id_error)
        message(FATAL_ERROR "${suite_file}: not a kernelgate suite (no $.id: ${id_error})")
      endif()
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${suite_file})
      set(labels)
      if(workload MATCHES "^l([0-9]+)_")
        list(APPEND labels level${CMAKE_MATCH_1})
      endif()
      if(workload MATCHES "conv")
        list(APPEND labels conv)
      endif()
      # Beside its reports each run leaves its runner records, samples
      # included (<workload>.<label>.results.json), for `kernelgate gate` and
      # `compare`.
      set(run $<TARGET_FILE:${arg_CANDIDATES}> run --workload ${workload} --suites ${suites}
              --baselines ${baselines} --report-dir ${arg_REPORT_DIR})
      set(results ${arg_REPORT_DIR}/${workload})
      if(NOT KERNELGATE_GPU)
        # --counters: the cpu key gates interpret mode's counters against the
        # modelled records of <baselines>/<workload>/cpu.json (docs/roofline.md).
        add_test(NAME ${workload}.cpu COMMAND ${run} --device cpu --preset ${arg_PRESET} --counters
                                              --results ${results}.cpu.results.json)
        set_tests_properties(${workload}.cpu PROPERTIES
          LABELS "cpu;${labels}"
          SKIP_RETURN_CODE ${KERNELGATE_SKIP_EXIT_CODE}
          FIXTURES_SETUP kernelgate_reports_cpu)
      else()
        foreach(label IN LISTS KERNELGATE_GPU_LABELS)
          add_test(NAME ${workload}.${label} COMMAND ${run} --device cuda --results ${results}.${label}.results.json)
          # The runner maps CTest's CTEST_RESOURCE_GROUP_0_GPUS to the device
          # id, and skips when the GPU's class is not the label's.
          set_tests_properties(${workload}.${label} PROPERTIES
            LABELS "${label};gpu;${labels}"
            RESOURCE_GROUPS "gpus:1"
            SKIP_RETURN_CODE ${KERNELGATE_SKIP_EXIT_CODE}
            ENVIRONMENT "KERNELGATE_EXPECT_HARDWARE_LABEL=${label}"
            FIXTURES_SETUP kernelgate_reports_${label})
        endforeach()
      endif()
    endforeach()
  endforeach()
endfunction()
