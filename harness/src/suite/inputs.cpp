// Deterministic inputs and parameters (docs/inputs.md).
#include <cmath>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/expression.hpp"
#include "kernelgate/reference.hpp"
#include "parallel.hpp"
#include "philox.hpp"
#include "sha256.hpp"

namespace kg {

std::uint64_t input_key(const std::string& workload, const Axes& axes, std::uint64_t seed,
                        const std::string& tensor) {
  // Axes as a compact JSON object with sorted keys, e.g. {"batch":2,"groups":1}.
  nlohmann::json axes_json = nlohmann::json::object();
  for (const auto& [name, value] : axes) axes_json[name] = value;
  std::string material = "kernelgate-inputs/1\n" + workload + "\n" + axes_json.dump() + "\n" +
                         std::to_string(seed) + "\n" + tensor;
  auto digest = sha256(material);
  std::uint64_t key = 0;
  for (int i = 0; i < 8; ++i) key |= std::uint64_t{digest[i]} << (8 * i);  // little-endian
  return key;
}

float uniform_at(std::uint64_t key, std::uint64_t index) {
  PhiloxCounter counter = {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                           0u, 0u};
  PhiloxKey philox_key = {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)};
  std::uint32_t bits = philox4x32_10(counter, philox_key)[0];
  // The top 24 bits: every value is an exact float in [0, 1).
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

Distribution distribution(const Suite& suite, const TensorSpec& tensor, const Axes& axes) {
  const auto& init = tensor.init;
  if (!init.is_object() || !init.contains("distribution"))
    throw Error("workload " + suite.id + ": tensor '" + tensor.name + "' has no init distribution");
  std::string kind = init.at("distribution").get<std::string>();
  if (kind == "uniform") return {init.at("low").get<double>(), init.at("high").get<double>()};
  if (kind == "uniform_fan_in") {
    // PyTorch's default for convolution weights (kaiming_uniform with a = sqrt(5))
    // and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
    std::int64_t fan_in = evaluate_expression(init.at("fan_in").get<std::string>(), axes);
    if (fan_in <= 0)
      throw Error("workload " + suite.id + ": tensor '" + tensor.name + "' has fan_in " +
                  std::to_string(fan_in) + ", must be positive");
    double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    return {-bound, bound};
  }
  throw Error("workload " + suite.id + ": tensor '" + tensor.name + "' has unknown distribution '" +
              kind + "'");
}

HostTensor<float> generate_tensor(const Suite& suite, const TensorSpec& tensor, const Axes& axes,
                                  std::uint64_t seed) {
  if (tensor.role == TensorRole::output)
    throw Error("workload " + suite.id + ": tensor '" + tensor.name + "' is the output, not generated");
  HostTensor<float> result;
  result.shape = suite.shape(tensor.name, axes);
  result.data.resize(static_cast<std::size_t>(result.numel()));
  Distribution range = distribution(suite, tensor, axes);
  std::uint64_t key = input_key(suite.id, axes, seed, tensor.name);
  float* out = result.data.data();
  parallel_for(result.numel(), 1 << 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      double u = uniform_at(key, static_cast<std::uint64_t>(i));
      out[i] = static_cast<float>(range.low + (range.high - range.low) * u);
    }
  });
  return result;
}

Tensors generate_inputs(const Suite& suite, const Axes& axes, std::uint64_t seed) {
  Tensors tensors;
  for (const auto& tensor : suite.tensors)
    if (tensor.role != TensorRole::output)
      tensors[tensor.name] = generate_tensor(suite, tensor, axes, seed);
  return tensors;
}

}  // namespace kg
