// kernelgate describe <workload>: everything the suite file says, evaluated at
// the chosen axes: shapes, FLOPs, bytes, floors per hardware key, identity.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "command.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {
namespace {

std::string bytes_text(double bytes) {
  char buffer[64];
  if (bytes >= 1e9) std::snprintf(buffer, sizeof buffer, "%.3f GB", bytes / 1e9);
  else std::snprintf(buffer, sizeof buffer, "%.1f MB", bytes / 1e6);
  return buffer;
}

std::string flops_text(double flops) {
  char buffer[64];
  if (flops >= 1e9) std::snprintf(buffer, sizeof buffer, "%.1f GFLOP", flops / 1e9);
  else std::snprintf(buffer, sizeof buffer, "%.2f MFLOP", flops / 1e6);
  return buffer;
}

// Milliseconds, or microseconds for the small floors of small axes.
std::string time_text(double ms) {
  char buffer[64];
  if (ms >= 0.01) std::snprintf(buffer, sizeof buffer, "%.3f ms", ms);
  else std::snprintf(buffer, sizeof buffer, "%.3f us", ms * 1e3);
  return buffer;
}

std::string init_text(const Suite& suite, const TensorSpec& tensor, const Axes& axes) {
  if (tensor.role == TensorRole::output) return "computed";
  Distribution range = distribution(suite, tensor, axes);
  char buffer[160];
  if (range.normal)
    std::snprintf(buffer, sizeof buffer, "N(%g, %g^2)", range.mean, range.std);
  else if (range.integer)
    std::snprintf(buffer, sizeof buffer, "integers of [%g, %g)", range.low, range.high);
  else if (tensor.init->distribution == TensorInit::Distribution::uniform_fan_in)
    std::snprintf(buffer, sizeof buffer, "U(-%.6g, %.6g) = 1/sqrt(fan_in), fan_in = %s",
                  range.high, range.high, tensor.init->fan_in.c_str());
  else
    std::snprintf(buffer, sizeof buffer, "U[%g, %g)", range.low, range.high);
  // An input built by ops: the ops after the draw.
  std::string ops_after;
  for (const ForwardStep& step : tensor.init->then)
    ops_after += std::string(ops_after.empty() ? "" : ", ") + std::string(ops::to_string(step.kind));
  return ops_after.empty() ? std::string(buffer) : std::string(buffer) + ", then " + ops_after;
}

void describe_identity(std::FILE* out, const Suite& suite, const std::string& preset) {
  std::fprintf(out, "workload   %s\n", suite.id.c_str());
  std::fprintf(out, "title      %s\n", suite.title.c_str());
  if (suite.origin.contains("level"))
    std::fprintf(out, "origin     %s level %d problem %d (%s)\n", suite.origin.value("benchmark", "").c_str(),
                suite.origin["level"].get<int>(), suite.origin.value("problem", 0),
                suite.origin.value("file", "").c_str());
  if (suite.origin.contains("module"))
    std::fprintf(out, "module     %s\n", suite.origin["module"].get<std::string>().c_str());
  std::fprintf(out, "file       %s\n", suite.file.string().c_str());
  std::fprintf(out, "identity   %s\n", suite.identity.c_str());
  std::fprintf(out, "reference  float64 on the host, the forward pass below (%zu ops)\n", suite.forward.size());
  std::fprintf(out, "axes       %s\n", preset.empty() ? "default" : ("preset " + preset).c_str());
}

// Each axis with its value, its presets, default and range; the suite's rules.
void describe_axes(std::FILE* out, const Suite& suite, const Axes& axes) {
  std::fprintf(out, "\naxes:\n  %-16s %8s", "name", "value");
  for (const auto& [name, unused] : suite.presets) std::fprintf(out, " %8s", name.c_str());
  std::fprintf(out, " %8s  %-14s %s\n", "default", "range", "description");
  for (const auto& axis : suite.axes) {
    std::fprintf(out, "  %-16s %8lld", axis.name.c_str(), static_cast<long long>(axes.at(axis.name)));
    for (const auto& [name, values] : suite.presets) {
      auto found = values.find(axis.name);
      std::fprintf(out, " %8s", found == values.end() ? "-" : std::to_string(found->second).c_str());
    }
    std::string range = "[" + std::to_string(axis.min) + ", " + std::to_string(axis.max) + "]";
    std::fprintf(out, " %8lld  %-14s %s\n", static_cast<long long>(axis.default_value), range.c_str(),
                axis.description.c_str());
  }
  if (!suite.rules.empty()) {
    std::fprintf(out, "\nrules:\n");
    for (const auto& rule : suite.rules)
      std::fprintf(out, "  %-48s %s\n", rule.check.c_str(), rule.message.c_str());
  }
}

// The tensors with their shapes and initialisation, then the forward pass.
void describe_computation(std::FILE* out, const Suite& suite, const Axes& axes) {
  std::fprintf(out, "\ntensors:\n");
  for (const auto& tensor : suite.tensors) {
    std::string shape = ops::describe(suite.shape(tensor.name, axes));
    const std::string role(to_string(tensor.role)), dtype(to_string(tensor.dtype));
    std::fprintf(out, "  %-18s %-10s %-8s %-26s %s\n", tensor.name.c_str(), role.c_str(), dtype.c_str(), shape.c_str(),
                 init_text(suite, tensor, axes).c_str());
  }

  std::fprintf(out, "\nforward:\n");
  const ResolvedForward forward = suite.resolve_forward(axes);
  for (const ForwardStep& step : suite.forward) {
    std::string operands;
    for (const auto& name : step.inputs) operands += (operands.empty() ? "" : ", ") + name;
    std::string attributes;
    for (const auto& [key, expressions] : step.integers) {
      std::string values;
      for (const auto& expression : expressions) values += (values.empty() ? "" : ", ") + expression;
      attributes += " " + key + "=" + (expressions.size() > 1 ? "(" + values + ")" : values);
    }
    const std::string call = std::string(ops::to_string(step.kind)) + "(" + operands + ")" + attributes;
    std::fprintf(out, "  %-58s -> %s %s\n", call.c_str(), step.output.c_str(),
                ops::describe(forward.shapes.at(step.output)).c_str());
  }
}

// FLOPs, bytes and intensity; the floors on every hardware key, with the
// peaks they come from and where each key's figures come from.
void describe_cost(std::FILE* out, const Suite& suite, const Axes& axes) {
  double flops = suite.flops(axes);
  double bytes = suite.bytes(axes);
  std::fprintf(out, "\ncost:\n  flops      %s (%.0f)\n", flops_text(flops).c_str(), flops);
  if (!suite.flops_description.empty())
    std::fprintf(out, "             %s\n", suite.flops_description.c_str());
  std::fprintf(out, "  bytes      %s (%.0f): every declared tensor crossing device memory once\n",
              bytes_text(bytes).c_str(), bytes);
  std::fprintf(out, "  intensity  %.1f FLOP/byte\n", flops / bytes);

  // Lower bounds for any implementation of each precision (docs/roofline.md, "Floors").
  std::fprintf(out, "\nfloors (docs/roofline.md, \"Floors\"):\n  %-10s %14s %12s %12s %12s   %s\n", "hardware",
               "memory", "fp32", "tf32", "bf16", "peaks (DRAM TB/s, L2 MiB, FP32/TF32/BF16 TFLOP/s)");
  for (const auto& hardware : known_hardware()) {
    Floors f = floors(suite, axes, hardware);
    const std::string memory = time_text(f.memory_ms) + (f.l2_resident ? " L2" : "   ");
    std::fprintf(out, "  %-10s %14s %12s %12s %12s   %g, %g, %g/%g/%g\n", hardware.key.c_str(), memory.c_str(),
                 time_text(f.fp32_ms).c_str(), time_text(f.tf32_ms).c_str(), time_text(f.bf16_ms).c_str(),
                 hardware.memory_bandwidth_tb_s, hardware.l2_bytes / (1024 * 1024), hardware.fp32_tflop_s,
                 hardware.tf32_tflop_s, hardware.bf16_tflop_s);
  }
  std::fprintf(out, "  L2: the working set fits in L2, so L2 bandwidth bounds it\n");

  std::fprintf(out, "\nroofline peaks (docs/roofline.md):\n  %-10s %10s %10s %12s %10s %14s\n", "hardware",
               "L2 TB/s", "SMs", "clock GHz", "BF16 TF/s", "DRAM/L2 clk");
  for (const auto& hardware : known_hardware())
    if (hardware.has_roofline())
      std::fprintf(out, "  %-10s %10.2f %10d %12.3f %10g %10d/%-3d\n", hardware.key.c_str(),
                   hardware.l2_bandwidth_tb_s, hardware.sm_count, hardware.sm_clock_ghz, hardware.bf16_tflop_s,
                   hardware.dram_latency_cycles, hardware.l2_latency_cycles);
  std::fprintf(out, "  sources:\n");
  for (const auto& hardware : known_hardware())
    std::fprintf(out, "    %-10s peaks: %s; roofline: %s\n", hardware.key.c_str(), hardware.source.c_str(),
                 hardware.roofline_source.c_str());
}

void describe_policy(std::FILE* out, const Suite& suite) {
  std::fprintf(out, "\ntolerance:\n");
  for (const auto& [precision, tolerance] : suite.tolerances)
    std::fprintf(out, "  %-6s atol %-8g rtol %-8g rel_l2 %g\n", precision.c_str(), tolerance.atol,
                tolerance.rtol, tolerance.rel_l2);
  std::fprintf(out,
              "\ngate:      latency_tolerance %g, noise_multiplier %g, max_age_days %d, win_is_stale %s, "
              "counter_tolerance %g\n",
              suite.gate.latency_tolerance, suite.gate.noise_multiplier, suite.gate.max_age_days,
              suite.gate.win_is_stale ? "true" : "false", suite.gate.counter_tolerance);
  std::fprintf(out, "contract:  no_mutation %s, no_aliasing %s\n", suite.contract.no_mutation ? "true" : "false",
              suite.contract.no_aliasing ? "true" : "false");
}

void describe(std::FILE* out, const Suite& suite, const Axes& axes, const std::string& preset) {
  describe_identity(out, suite, preset);
  describe_axes(out, suite, axes);
  describe_computation(out, suite, axes);
  describe_cost(out, suite, axes);
  describe_policy(out, suite);
}

}  // namespace

Work add_describe_command(CLI::App& command, CommonOptions& common) {
  auto options = std::make_shared<WorkloadChoice>();
  add_workload_options(command, *options);
  add_suites_option(command, common);
  return [options, &common] {
    Suite suite = find_suite(suites_dir_of(common), options->workload);
    Axes axes = resolve_workload_axes(suite, *options);
    // Into memory first: an axis value that fails late (a shape too large to
    // count) must give the error alone, not half a description before it.
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* out = ::open_memstream(&text, &size);
    if (!out) throw Error("describe: cannot allocate its output");
    try {
      describe(out, suite, axes, options->preset);
    } catch (...) {
      std::fclose(out);
      std::free(text);
      throw;
    }
    std::fclose(out);
    std::fwrite(text, 1, size, stdout);
    std::free(text);
    return 0;
  };
}

}  // namespace kg::cli
