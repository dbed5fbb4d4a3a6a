// Small candidates that each provoke one outcome of the runner. They start
// from an oracle (the float64 reference rounded to float, copied into the
// output by a kernel on the harness's stream) and then misbehave in one way.
// The cpu device hands out host memory, so the host-side misbehaviour below
// writes device memory as a kernel would.
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernelgate/candidate.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/strict_reference.hpp"
#include "test_candidates.hpp"

namespace kg::testing {
namespace {

__global__ void copy_kernel(const float* source, float* destination, std::int64_t count) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) destination[i] = source[i];
}

__global__ void spin_forever_kernel() {
  volatile bool forever = true;
  while (forever) {
  }
}

const Suite& test_suite() {
  static const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  return suite;
}

std::int64_t output_count(const LaunchArgs& args) {
  std::int64_t count = 1;
  for (auto extent : args.output_shape) count *= extent;
  return count;
}

// The right answer for the inputs in args, as float.
std::vector<float> oracle_answer(const LaunchArgs& args) {
  Tensors inputs;
  for (const auto& input : args.inputs) {
    HostTensor<float> tensor;
    tensor.shape = input.shape;
    std::int64_t count = 1;
    for (auto extent : input.shape) count *= extent;
    const float* values = args.in(input.name);  // the test workload's tensors are float32
    tensor.data.assign(values, values + count);
    inputs[input.name] = std::move(tensor);
  }
  const auto reference = reference_output(test_suite(), args.axes, inputs);
  return std::vector<float>(reference.data.begin(), reference.data.end());
}

void copy_on(cudaStream_t stream, const std::vector<float>& source, float* destination,
             std::int64_t count) {
  const unsigned blocks = static_cast<unsigned>((count + 127) / 128);
  kg::launch(copy_kernel, dim3(blocks == 0 ? 1 : blocks), dim3(128), 0, stream, source.data(),
             destination, count);
}

void oracle(const LaunchArgs& args) {
  copy_on(args.stream, oracle_answer(args), args.output, output_count(args));
}

int call_count = 0;  // per child process: set A is call 1, set B call 2, the repeat call 3

Candidate make(const std::string& id, std::function<void(const LaunchArgs&)> launch,
               std::string precision = "fp32") {
  return Candidate{.workload = kTestWorkload,
                   .id = id,
                   .precision = std::move(precision),
                   .summary = "test-only candidate",
                   .unsupported_reason = [](const Axes&) { return std::string(); },
                   .workspace_bytes = [](const Axes&) { return std::size_t{64}; },
                   .launch = std::move(launch)};
}

const CandidateRegistrar registrars[] = {
    CandidateRegistrar(make("oracle", oracle)),
    CandidateRegistrar(make("oracle_tf32", oracle, "tf32")),
    // Right, and 20 ms on the host in every call: time the parent's clock sees.
    CandidateRegistrar(make("oracle_slow",
                            [](const LaunchArgs& args) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(20));
                              oracle(args);
                            })),
    CandidateRegistrar([] {
      Candidate candidate = make("never_supported", oracle);
      candidate.unsupported_reason = [](const Axes&) { return std::string("test: no shape is supported"); };
      return candidate;
    }()),
    CandidateRegistrar(make("wrong_one_element",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              args.output[output_count(args) / 2] += 1.0f;
                            })),
    // Channel 4 of every batch item wrong: a weight read from the wrong place.
    CandidateRegistrar(make("wrong_last_channel",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              const std::int64_t n = output_count(args), plane = args.axes.at("height") *
                                                                                  args.axes.at("width");
                              const std::int64_t channels = args.axes.at("out_channels");
                              for (std::int64_t i = 0; i < n; ++i)
                                if (i / plane % channels == channels - 1) args.output[i] += 1.0f;
                            })),
    CandidateRegistrar(make("writes_nan",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              args.output[3] = std::numeric_limits<float>::quiet_NaN();
                            })),
    CandidateRegistrar(make("writes_half",
                            [](const LaunchArgs& args) {
                              copy_on(args.stream, oracle_answer(args), args.output, output_count(args) / 2);
                            })),
    CandidateRegistrar(make("mutates_input",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              const_cast<float*>(args.in("x"))[0] += 1.0f;
                            })),
    CandidateRegistrar(make("writes_past_end",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              args.output[output_count(args)] = 0.0f;
                            })),
    CandidateRegistrar(make("replays_first_answer",
                            [](const LaunchArgs& args) {
                              static std::vector<float> first;
                              if (first.empty()) first = oracle_answer(args);
                              copy_on(args.stream, first, args.output, output_count(args));
                            })),
    CandidateRegistrar(make("drifts_on_repeat",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              if (++call_count >= 3) args.output[0] += 0.5f;
                            })),
    CandidateRegistrar(make("last_bit_jitter",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              if (++call_count >= 3)
                                args.output[0] = std::nextafter(args.output[0], 1e30f);
                            })),
    CandidateRegistrar(make("default_stream",
                            [](const LaunchArgs& args) {
                              copy_on(nullptr, oracle_answer(args), args.output, output_count(args));
                            })),
    CandidateRegistrar(make("wrong_under_reverse",
                            [](const LaunchArgs& args) {
                              oracle(args);
                              if (kg::interp::current_thread_order().kind == kg::interp::ThreadOrder::Kind::reverse)
                                args.output[1] -= 1.0f;
                            })),
    CandidateRegistrar(make("segfaults",
                            [](const LaunchArgs&) {
                              // Read through volatile so the compiler cannot see the address.
                              volatile std::uintptr_t unmapped = 16;
                              *reinterpret_cast<volatile int*>(unmapped) = 1;
                            })),
    CandidateRegistrar(make("aborts", [](const LaunchArgs&) { std::abort(); })),
    CandidateRegistrar(make("throws",
                            [](const LaunchArgs&) { throw std::runtime_error("test candidate gave up"); })),
    CandidateRegistrar(make("hangs",
                            [](const LaunchArgs& args) {
                              kg::launch(spin_forever_kernel, dim3(1), dim3(1), 0, args.stream);
                            })),
};

// The oracle also stands in for the workload's strict-FP32 GPU reference, so
// the runner's whole-output check runs in the cpu build too (it only runs
// where the float64 comparison is sampled). With
// KG_TEST_BREAK_STRICT_REFERENCE=1 it is wrong everywhere, so at whichever
// fresh points the parent checks it.
KG_REGISTER_STRICT_REFERENCE({
    .workload = kTestWorkload,
    .summary = "test oracle",
    .workspace_bytes = [](const Axes&) { return std::size_t{0}; },
    .launch =
        [](const LaunchArgs& args) {
          oracle(args);
          const char* broken = std::getenv("KG_TEST_BREAK_STRICT_REFERENCE");
          if (broken && std::strcmp(broken, "1") == 0)
            for (std::int64_t i = 0; i < output_count(args); ++i) args.output[i] += 1.0f;
        },
});

}  // namespace
}  // namespace kg::testing
