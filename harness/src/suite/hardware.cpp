// Peak figures per hardware key. The GPU figures are NVIDIA's datasheet
// numbers (dense, no sparsity); the cpu key is a
// nominal 2-core x86 runner, only there so that interpret-mode reports have a
// scale, not a target.
#include "kernelgate/hardware.hpp"

#include <algorithm>

#include "kernelgate/error.hpp"

namespace kg {

const std::vector<HardwareSpec>& known_hardware() {
  static const std::vector<HardwareSpec> hardware = {
      {"h100-sxm", "NVIDIA H100 SXM5 80GB (HBM3)", 3.35, 67.0, 495.0, "NVIDIA H100 datasheet"},
      {"h100-pcie", "NVIDIA H100 PCIe 80GB (HBM2e)", 2.0, 51.0, 378.0, "NVIDIA H100 datasheet"},
      {"h200", "NVIDIA H200 SXM 141GB (HBM3e)", 4.8, 67.0, 495.0,
       "NVIDIA H200 datasheet (about 4.3 TB/s measured on a copy)"},
      {"cpu", "interpret mode on a nominal 2-core x86 CI runner", 0.02, 0.1, 0.1,
       "nominal: no tensor cores, so TF32 = FP32"},
  };
  return hardware;
}

const HardwareSpec& hardware_spec(const std::string& key) {
  for (const auto& spec : known_hardware())
    if (spec.key == key) return spec;
  std::string known;
  for (const auto& spec : known_hardware()) known += (known.empty() ? "" : ", ") + spec.key;
  throw Error("unknown hardware key '" + key + "' (known: " + known + ")");
}

double Floors::bound_ms(const std::string& precision) const {
  return std::max(memory_ms, precision == "tf32" ? tf32_ms : fp32_ms);
}

Floors floors(const Suite& suite, const Axes& axes, const HardwareSpec& hardware) {
  const double bytes = suite.bytes(axes);
  const double flops = suite.flops(axes);
  Floors result;
  result.memory_ms = bytes / (hardware.memory_bandwidth_tb_s * 1e12) * 1e3;
  result.fp32_ms = flops / (hardware.fp32_tflop_s * 1e12) * 1e3;
  result.tf32_ms = flops / (hardware.tf32_tflop_s * 1e12) * 1e3;
  return result;
}

Floors floors(const Suite& suite, const Axes& axes, const std::string& hardware_key) {
  return floors(suite, axes, hardware_spec(hardware_key));
}

}  // namespace kg
