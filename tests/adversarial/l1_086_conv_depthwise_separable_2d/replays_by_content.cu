// Adversarial candidate: keeps every answer it computes, keyed by a hash of
// its inputs' contents, and on inputs it has seen before copies the kept
// answer instead of computing. Every answer it gives is right; what it games
// is the clock, if the harness ever times it on inputs it has already seen
// (the checked runs' sets, say). Each answer it computes costs four launches
// of the honest kernel, so its honest time is plainly above direct_fp32's,
// even beside a busy neighbour (the simulated GPU adds a flush to both):
// check_adversarial.cmake asserts its median is, which only holds when every
// timed sample runs on inputs of its own.
#include <cstdint>
#include <map>
#include <vector>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

// FNV-1a over the bytes of every input, read back to the host.
std::uint64_t content_hash(const kg::LaunchArgs& args) {
  std::uint64_t hash = 14695981039346656037ull;
  std::vector<unsigned char> bytes;
  for (const auto& input : args.inputs) {
    std::size_t count = 1;
    for (const std::int64_t extent : input.shape) count *= static_cast<std::size_t>(extent);
    bytes.resize(count * kg::element_bytes(input.dtype));
    cudaMemcpyAsync(bytes.data(), input.data, bytes.size(), cudaMemcpyDeviceToHost, args.stream);
    cudaStreamSynchronize(args.stream);
    for (const unsigned char byte : bytes) hash = (hash ^ byte) * 1099511628211ull;
  }
  return hash;
}

void replay_by_content(const kg::LaunchArgs& args) {
  static std::map<std::uint64_t, std::vector<float>> answers;
  const std::size_t bytes = kg::adversarial::shape_of(args).total() * sizeof(float);
  const std::uint64_t key = content_hash(args);
  if (const auto kept = answers.find(key); kept != answers.end()) {
    cudaMemcpyAsync(args.output, kept->second.data(), bytes, cudaMemcpyHostToDevice, args.stream);
    cudaStreamSynchronize(args.stream);
    return;
  }
  for (int pass = 0; pass < 4; ++pass)
    kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::none, args.stream);
  std::vector<float>& answer = answers[key];
  answer.resize(bytes / sizeof(float));
  cudaMemcpyAsync(answer.data(), args.output, bytes, cudaMemcpyDeviceToHost, args.stream);
  cudaStreamSynchronize(args.stream);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: replays answers by the content of its inputs", replay_by_content)});

}  // namespace
