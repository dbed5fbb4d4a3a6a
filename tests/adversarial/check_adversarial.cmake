# Runs kernelgate-adversarial on the adversarial candidates of each workload
# plus that workload's real direct_fp32 candidate and asserts each outcome
# (runner results, before the gate), its rule or message, that the JSON
# report on stdout parses, and the exit code. Every passing candidate is
# timed (two checked samples), so a candidate that misbehaves only while
# timed is judged too.
# -DKERNELGATE=<binary> -DSUITES=<folder> -DDEVICE=cpu|cuda|sim:<key> -DWORK_DIR=<scratch folder>
cmake_minimum_required(VERSION 3.25)

# id=outcome[:rule][~message regex]; "cpu|" or "gpu|" before the id: that
# device only ("gpu|" includes the simulated GPU, whose rules are a GPU's);
# "watchdog|": not on the simulated GPU, where it would only wait out the
# same watchdog, the parent's, that adversarial.cpu already times out.
set(l1_086_expected
  "writes_half=contract_violation:output_fully_written"
  "mutates_input=contract_violation:inputs_unchanged"
  "writes_past_end=contract_violation:guard_bands"
  "replays_previous=contract_violation:fresh_inputs"
  "replays_by_content=passed"
  "ignores_stream=contract_violation:launch_stream"
  "cpu|destroys_its_stream=contract_violation:launch_stream~was issued on stream [0-9]+, not on the stream the harness gave"
  "gpu|destroys_its_stream=contract_violation:launch_stream"
  "writes_nan=incorrect"
  "wrong_by_one=incorrect"
  "segfaults=crashed~SIGSEGV"
  "aborts=crashed~SIGABRT"
  "aborts_in_workspace_bytes=crashed~SIGABRT"
  "forges_result=crashed~exited with code 0 before the runner's checks were done"
  "cpu|sets_thread_order=incorrect~^under thread order reverse: "
  "gpu|sets_thread_order=passed"
  "watchdog|loops_forever=timed_out"
  "direct_fp32=passed")
set(l1_086_axes batch_size=1,in_channels=4,out_channels=8)
set(l1_071_expected
  "skips_when_timed=contract_violation:timed_outputs~timed sample 1 \\(inputs of its own\\): [0-9]+ of [0-9]+ output elements were never written"
  "writes_parent_stdout=passed"
  "cpu|moves_stream_when_timed=contract_violation:launch_stream~^launch_stream: timed sample 1 \\(inputs of its own\\): a kernel ran outside the harness's stream"
  "gpu|moves_stream_when_timed=contract_violation:launch_stream~^launch_stream: timed samples: after the timed region the device stayed busy a median"
  "direct_fp32=passed")
set(l1_071_axes batch_size=1)
# Under --lint-fails a finding of `kernelgate lint` in the candidate's file
# (here: the /proc path and the calls that open it) fails a candidate whose
# run passes; the clean direct_fp32 still passes.
set(lint_expected
  "writes_parent_stdout=contract_violation~^[0-9]+ lint finding\\(s\\), the first: l1_071_conv_transposed_2d/writes_parent_stdout.cu:[0-9]+: "
  "direct_fp32=passed")
set(l2_078_expected
  "throws_in_unsupported_reason=crashed~^exception: adversarial: unsupported_reason gave up$"
  "replays_when_timed=contract_violation:timed_outputs~is not the answer for its inputs"
  "leaves_grandchild=contract_violation:stray_processes"
  "watchdog|stops_parent=timed_out"
  "direct_fp32=passed")
set(l2_078_axes batch_size=1,in_channels=4,out_channels=8)
# Sampled comparison (outputs above 16 elements, only the first and last
# element compared): the NaN in the middle is seen by the scan alone.
set(sampled_expected
  "nan_between_samples=incorrect~output elements are NaN or infinite"
  "direct_fp32=passed")

# The watchdog covers a child's whole life: on a GPU that includes creating
# the CUDA context and starting the stream audit, so it gets more time there
# (the simulated GPU has neither to wait for).
if(DEVICE STREQUAL "cpu" OR DEVICE MATCHES "^sim:")
  set(child_timeout 5)
else()
  set(child_timeout 30)
endif()
math(EXPR wait_s "${child_timeout} + 2")
set(ENV{KG_ADVERSARIAL_WAIT_S} ${wait_s})
set(ENV{KG_ADVERSARIAL_PID_FILE} ${WORK_DIR}/grandchild.pid)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/baselines)  # empty: the real candidates are `new`
set(failures "")

# run_case(<name> <workload> <axes> <expected list> [extra run arguments...])
function(run_case name workload axes expected_var)
  set(ids "")
  set(expected "")
  foreach(entry IN LISTS ${expected_var})
    if(entry MATCHES "^(cpu|gpu|watchdog)\\|(.*)$")
      set(only "${CMAKE_MATCH_1}")
      set(entry "${CMAKE_MATCH_2}")
      if((only STREQUAL "cpu") AND NOT (DEVICE STREQUAL "cpu"))
        continue()
      endif()
      if((only STREQUAL "gpu") AND (DEVICE STREQUAL "cpu"))
        continue()
      endif()
      if((only STREQUAL "watchdog") AND (DEVICE MATCHES "^sim:"))
        continue()
      endif()
    endif()
    list(APPEND expected "${entry}")
    string(REGEX REPLACE "=.*" "" id "${entry}")
    list(APPEND ids ${id})
  endforeach()
  list(JOIN ids "," id_list)
  execute_process(
    COMMAND ${KERNELGATE} run --workload ${workload} --suites ${SUITES} --device ${DEVICE} --preset ci
            --axes ${axes} --timeout ${child_timeout} --protocol adaptive --budget 0
            --candidates ${id_list}
            --baselines ${WORK_DIR}/baselines --report-dir ${WORK_DIR}/reports-${name}
            --results ${WORK_DIR}/results-${name}.json --json ${ARGN}
    RESULT_VARIABLE exit_code
    OUTPUT_VARIABLE json_report
    ERROR_VARIABLE progress)
  message(STATUS "${name} progress:\n${progress}")
  if(exit_code EQUAL 77)
    message(STATUS "kernelgate: skipped: no device")
    set(skipped TRUE PARENT_SCOPE)
    return()
  endif()
  if(NOT exit_code EQUAL 1)
    message(FATAL_ERROR "${name}: expected exit code 1 (candidates failed), got ${exit_code}")
  endif()
  string(JSON report_type ERROR_VARIABLE json_error TYPE "${json_report}")
  if(json_error OR NOT report_type STREQUAL "OBJECT")
    message(FATAL_ERROR "${name}: --json did not print a JSON object on stdout: ${json_error}\n${json_report}")
  endif()

  file(READ ${WORK_DIR}/results-${name}.json results)
  string(JSON candidate_count LENGTH "${results}" 0 candidates)
  math(EXPR last "${candidate_count} - 1")
  set(case_failures "")
  foreach(entry IN LISTS expected)
    string(REGEX MATCH "^([^=]+)=([^:~]+):?([^~]*)~?(.*)$" _ "${entry}")
    set(id ${CMAKE_MATCH_1})
    set(want_outcome ${CMAKE_MATCH_2})
    set(want_rule "${CMAKE_MATCH_3}")
    set(want_message "${CMAKE_MATCH_4}")
    set(found FALSE)
    foreach(i RANGE ${last})
      string(JSON candidate_id GET "${results}" 0 candidates ${i} id)
      if(NOT candidate_id STREQUAL id)
        continue()
      endif()
      set(found TRUE)
      string(JSON outcome GET "${results}" 0 candidates ${i} outcome)
      string(JSON candidate_message GET "${results}" 0 candidates ${i} message)
      if(NOT outcome STREQUAL want_outcome)
        string(APPEND case_failures "\n  ${name}/${id}: expected ${want_outcome}, got ${outcome}: ${candidate_message}")
      elseif(want_rule AND NOT candidate_message MATCHES "^${want_rule}: ")
        string(APPEND case_failures "\n  ${name}/${id}: expected rule ${want_rule}, got: ${candidate_message}")
      elseif(want_message AND NOT candidate_message MATCHES "${want_message}")
        string(APPEND case_failures "\n  ${name}/${id}: expected a message matching '${want_message}', got: ${candidate_message}")
      endif()
    endforeach()
    if(NOT found)
      string(APPEND case_failures "\n  ${name}/${id}: missing from the results")
    endif()
  endforeach()
  set(failures "${failures}${case_failures}" PARENT_SCOPE)
endfunction()

# Whole microseconds of a number of milliseconds as JSON writes it
# ("0.8589" -> 858; "2.5e-05", under a microsecond, -> 0).
function(microseconds ms out)
  if(ms MATCHES "e-")
    set(${out} 0 PARENT_SCOPE)
    return()
  endif()
  string(REGEX MATCH "^([0-9]+)\\.?([0-9]*)" _ "${ms}")
  string(SUBSTRING "${CMAKE_MATCH_2}000" 0 3 fraction)
  math(EXPR us "${CMAKE_MATCH_1} * 1000 + 1${fraction} - 1000")
  set(${out} ${us} PARENT_SCOPE)
endfunction()

# expect_not_far_faster(<case> <id> <than id>): in one case's results, the
# first candidate's median latency is above a quarter of the second's. The
# quarter leaves room for interpret mode's wall clock on a busy machine; a
# replayed answer is a copy, tens of times faster.
function(expect_not_far_faster name fast slow)
  file(READ ${WORK_DIR}/results-${name}.json results)
  string(JSON candidate_count LENGTH "${results}" 0 candidates)
  math(EXPR last "${candidate_count} - 1")
  foreach(i RANGE ${last})
    string(JSON candidate_id GET "${results}" 0 candidates ${i} id)
    string(JSON median ERROR_VARIABLE no_latency GET "${results}" 0 candidates ${i} latency median_ms)
    if(no_latency)
      set(median "")
    endif()
    set(median_${candidate_id} "${median}")
  endforeach()
  if(median_${fast} STREQUAL "" OR median_${slow} STREQUAL "")
    set(failures "${failures}\n  ${name}: no median latency of ${fast} or ${slow}" PARENT_SCOPE)
    return()
  endif()
  microseconds(${median_${fast}} fast_us)
  microseconds(${median_${slow}} slow_us)
  math(EXPR four_times "${fast_us} * 4")
  if(NOT four_times GREATER slow_us)
    set(failures "${failures}\n  ${name}/${fast}: median ${median_${fast}} ms, under a quarter of ${slow}'s ${median_${slow}} ms"
        PARENT_SCOPE)
  endif()
endfunction()

run_case(l1_086 l1_086_conv_depthwise_separable_2d ${l1_086_axes} l1_086_expected)
if(skipped)
  return()
endif()
# Its honest time is four honest launches; a median under a quarter of one
# means timed samples ran on inputs it had seen and were answered from its
# store.
expect_not_far_faster(l1_086 replays_by_content direct_fp32)
run_case(l1_071 l1_071_conv_transposed_2d ${l1_071_axes} l1_071_expected)
# Without --lint-fails the findings are listed in the result, failing nothing.
file(READ ${WORK_DIR}/results-l1_071.json results)
string(JSON candidate_count LENGTH "${results}" 0 candidates)
math(EXPR last "${candidate_count} - 1")
foreach(i RANGE ${last})
  string(JSON candidate_id GET "${results}" 0 candidates ${i} id)
  string(JSON findings ERROR_VARIABLE no_findings LENGTH "${results}" 0 candidates ${i} source_lint)
  if(no_findings)
    set(findings 0)
  endif()
  if(candidate_id STREQUAL "writes_parent_stdout" AND findings EQUAL 0)
    string(APPEND failures "\n  l1_071/writes_parent_stdout: no source_lint findings listed")
  elseif(candidate_id STREQUAL "direct_fp32" AND NOT findings EQUAL 0)
    string(APPEND failures "\n  l1_071/direct_fp32: source_lint findings listed for a shipped kernel")
  endif()
endforeach()
run_case(lint l1_071_conv_transposed_2d ${l1_071_axes} lint_expected --lint-fails)
run_case(l2_078 l2_078_conv_transpose3d_max_max_sum ${l2_078_axes} l2_078_expected)
run_case(sampled l1_071_conv_transposed_2d ${l1_071_axes} sampled_expected --compare-whole-max 16 --sample-points 2)

# The grandchild that leaves_grandchild left must be gone.
if(EXISTS ${WORK_DIR}/grandchild.pid)
  file(STRINGS ${WORK_DIR}/grandchild.pid grandchild)
  execute_process(COMMAND kill -0 ${grandchild} RESULT_VARIABLE alive ERROR_QUIET)
  if(alive EQUAL 0)
    string(APPEND failures "\n  leaves_grandchild: its grandchild (pid ${grandchild}) is still running")
  endif()
else()
  string(APPEND failures "\n  leaves_grandchild: wrote no pid file (it never ran?)")
endif()

if(failures)
  message(FATAL_ERROR "adversarial outcomes differ:${failures}")
endif()
message(STATUS "every adversarial candidate got its outcome and the real candidates passed")
