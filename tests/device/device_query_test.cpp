// A failed device query answers 0 and clears the error it left
// (kernelgate/detail/device_query.hpp), with a fake runtime whose last error
// behaves as the CUDA runtime's does: set by a failing call, read and
// cleared by cudaGetLastError.
#include <gtest/gtest.h>

#include "kernelgate/detail/device_query.hpp"

namespace kg::detail {
namespace {

struct FakeRuntime {
  int last_error = 0;  // 0: success
  int query(int& answer, int status, int value) {
    if (status != 0) {
      last_error = status;
      return status;
    }
    answer = value;
    return 0;
  }
  void get_last_error() { last_error = 0; }
};

TEST(DeviceQuery, AFailedQueryAnswersZeroAndLeavesNoErrorBehind) {
  FakeRuntime runtime;
  const int sms = answer_or_zero(
      0, [&](int& answer) { return runtime.query(answer, 101 /* invalid device */, 132); },
      [&] { runtime.get_last_error(); });
  EXPECT_EQ(sms, 0);
  // Left set, the harness's next stream check would blame the candidate's launch.
  EXPECT_EQ(runtime.last_error, 0);
}

TEST(DeviceQuery, ASuccessfulQueryAnswersAndTouchesNoError) {
  FakeRuntime runtime;
  runtime.last_error = 700;  // an earlier failure that is not the query's to clear
  const int sms = answer_or_zero(
      0, [&](int& answer) { return runtime.query(answer, 0, 132); }, [&] { runtime.get_last_error(); });
  EXPECT_EQ(sms, 132);
  EXPECT_EQ(runtime.last_error, 700);
}

}  // namespace
}  // namespace kg::detail
