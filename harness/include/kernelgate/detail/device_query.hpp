#pragma once
// The answer of a device query that may fail (kernelgate/cuda.hpp's
// sm_count and max_active_blocks_per_sm), apart from the CUDA runtime so it
// is unit-tested in every build. A CUDA runtime call that fails also sets the
// process's last error; left there, the harness's next check of the stream
// would report it as the failure of the candidate's last launch. So a failed
// query answers 0 and forgets its error at once.
namespace kg::detail {

// `query(answer)` returns `ok` on success; on anything else the answer is 0
// and `forget_error()` clears what the failure left behind.
template <typename Status, typename Query, typename ForgetError>
int answer_or_zero(Status ok, Query&& query, ForgetError&& forget_error) {
  int answer = 0;
  if (query(answer) == ok) return answer;
  forget_error();
  return 0;
}

}  // namespace kg::detail
