// Deterministic inputs and parameters (docs/inputs.md).
#include <cmath>
#include <cstring>
#include <numbers>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/expression.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/parallel.hpp"
#include "philox.hpp"
#include "sha256.hpp"

namespace kg {

std::uint64_t input_key(const std::string& workload, const Axes& axes, std::uint64_t seed,
                        const std::string& tensor) {
  // Axes as a compact JSON object with sorted keys, e.g. {"batch_size":2,"groups":1}.
  const nlohmann::json axes_json(axes);
  std::string material = "kernelgate-inputs/1\n" + workload + "\n" + axes_json.dump() + "\n" +
                         std::to_string(seed) + "\n" + tensor;
  auto digest = sha256(material);
  std::uint64_t key = 0;
  for (int i = 0; i < 8; ++i) key |= std::uint64_t{digest[i]} << (8 * i);  // little-endian
  return key;
}

std::uint64_t input_set_seed(std::uint64_t run_seed, std::uint64_t set) {
  const auto digest = sha256("kernelgate-set/1\n" + std::to_string(run_seed) + "\n" + std::to_string(set));
  std::uint64_t seed = 0;
  for (int i = 0; i < 8; ++i) seed |= std::uint64_t{digest[i]} << (8 * i);  // little-endian
  return seed;
}

namespace {

auto philox_words(std::uint64_t key, std::uint64_t index) {
  PhiloxCounter counter = {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                           0u, 0u};
  PhiloxKey philox_key = {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)};
  return philox4x32_10(counter, philox_key);
}

}  // namespace

float uniform_at(std::uint64_t key, std::uint64_t index) {
  // The top 24 bits: every value is an exact float in [0, 1).
  return static_cast<float>(philox_words(key, index)[0] >> 8) * (1.0f / 16777216.0f);
}

double normal_at(std::uint64_t key, std::uint64_t index) {
  const auto words = philox_words(key, index);
  // u1 excludes 0 (its logarithm) and may be 1; u2 is as uniform_at's.
  const double u1 = (static_cast<double>(words[0] >> 8) + 1.0) / 16777216.0;
  const double u2 = static_cast<double>(words[1] >> 8) / 16777216.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

float Distribution::at(std::uint64_t key, std::uint64_t index) const {
  if (normal) return static_cast<float>(mean + std * normal_at(key, index));
  if (integer) return static_cast<float>(low + std::floor((high - low) * double(uniform_at(key, index))));
  return static_cast<float>(low + (high - low) * double(uniform_at(key, index)));
}

std::string randint_bounds_problem(std::int64_t low, std::int64_t high) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 24;
  if (high <= low || high - low > (std::int64_t{1} << 16))
    return "randint's high " + std::to_string(high) + " must be above its low " + std::to_string(low) +
           " by at most 2^16";
  if (low < -kLimit || high > kLimit)
    return "randint's integers [" + std::to_string(low) + ", " + std::to_string(high) +
           ") reach beyond +-2^24, where float32 stops holding every integer";
  return "";
}

Distribution distribution(const Suite& suite, const TensorSpec& tensor, const Axes& axes) {
  if (!tensor.init)
    throw Error("workload " + suite.id + ": tensor '" + tensor.name + "' has no init distribution");
  return distribution(suite, tensor.name, *tensor.init, axes);
}

Distribution distribution(const Suite& suite, const std::string& what, const TensorInit& init, const Axes& axes) {
  switch (init.distribution) {
    case TensorInit::Distribution::uniform: return {.low = init.low, .high = init.high};
    case TensorInit::Distribution::normal: return {.normal = true, .mean = init.mean, .std = init.std};
    case TensorInit::Distribution::randint: {
      const std::int64_t low = evaluate_expression(init.randint_low, axes);
      const std::int64_t high = evaluate_expression(init.randint_high, axes);
      if (const std::string problem = randint_bounds_problem(low, high); !problem.empty())
        throw Error("workload " + suite.id + ": tensor '" + what + "': " + problem);
      return {.integer = true, .low = static_cast<double>(low), .high = static_cast<double>(high)};
    }
    case TensorInit::Distribution::uniform_fan_in: {
      // PyTorch's default for convolution weights (kaiming_uniform with a = sqrt(5))
      // and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
      const std::int64_t fan_in = evaluate_expression(init.fan_in, axes);
      if (fan_in <= 0)
        throw Error("workload " + suite.id + ": tensor '" + what + "' has fan_in " +
                    std::to_string(fan_in) + ", must be positive");
      const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
      return {.low = -bound, .high = bound};
    }
  }
  throw Error("workload " + suite.id + ": tensor '" + what + "' has an unknown distribution");
}

HostTensor<float> generate_tensor(const Suite& suite, const TensorSpec& tensor, const Axes& axes,
                                  std::uint64_t seed) {
  if (tensor.role == TensorRole::output)
    throw Error("workload " + suite.id + ": tensor '" + tensor.name + "' is the output, not generated");
  HostTensor<float> result;
  result.shape = suite.shape(tensor.name, axes);
  result.data.resize(static_cast<std::size_t>(result.numel()));
  if (tensor.init && !tensor.init->then.empty()) {
    const ops::Region built = generated_region(suite, tensor, axes, seed, ops::Box::whole(result.shape));
    for (std::size_t i = 0; i < result.data.size(); ++i) result.data[i] = static_cast<float>(built.data[i]);
    return result;
  }
  const Distribution values = distribution(suite, tensor, axes);
  const std::uint64_t key = input_key(suite.id, axes, seed, tensor.name);
  float* out = result.data.data();
  parallel_for(result.numel(), 1 << 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) out[i] = values.at(key, static_cast<std::uint64_t>(i));
  });
  return result;
}

std::vector<std::byte> tensor_bytes(const HostTensor<float>& tensor, DType dtype) {
  std::vector<std::byte> bytes(tensor.data.size() * element_bytes(dtype));
  const auto store = [&](auto element) {
    for (std::size_t i = 0; i < tensor.data.size(); ++i) {
      const decltype(element) value = static_cast<decltype(element)>(tensor.data[i]);
      std::memcpy(bytes.data() + i * sizeof value, &value, sizeof value);
    }
  };
  switch (dtype) {
    case DType::float32: store(float{}); break;
    case DType::int64: store(std::int64_t{}); break;
    case DType::boolean: store(bool{}); break;
  }
  return bytes;
}

Tensors generate_inputs(const Suite& suite, const Axes& axes, std::uint64_t seed) {
  Tensors tensors;
  for (const auto& tensor : suite.tensors)
    if (tensor.role != TensorRole::output)
      tensors[tensor.name] = generate_tensor(suite, tensor, axes, seed);
  return tensors;
}

}  // namespace kg
