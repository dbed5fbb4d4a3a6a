// The runner starts each candidate as a child process of this same binary
// (runner_testing.hpp), so main answers the child subcommand before GoogleTest runs.
#include <gtest/gtest.h>

#include "kernelgate/detail/runner_testing.hpp"

int main(int argc, char** argv) {
  if (auto child_exit_code = kg::run_child_if_requested(argc, argv)) return *child_exit_code;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
