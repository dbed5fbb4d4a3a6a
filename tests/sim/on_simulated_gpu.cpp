// Runs the tests of a binary on the simulated GPU: the card is opened before
// the first test, so the interpret-mode runtime of the process is it.
#include <gtest/gtest.h>

#include "kernelgate/interpret/simulated_gpu.hpp"

namespace {

class OnTheSimulatedGpu final : public testing::Environment {
 public:
  void SetUp() override { kg::interp::sim::open(*kg::interp::sim::find_card("h100-sxm"), {}); }
};

[[maybe_unused]] testing::Environment* const on_the_simulated_gpu =
    testing::AddGlobalTestEnvironment(new OnTheSimulatedGpu);

}  // namespace
