// The roofline model of a counted run: terms, peaks and limits are in
// roofline.hpp and docs/roofline.md.
#include "kernelgate/detail/roofline.hpp"

#include <algorithm>
#include <cstdio>

#include "kernelgate/error.hpp"

namespace kg {

namespace {

std::string amount(double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g %s", value, unit);
  return buffer;
}

nlohmann::ordered_json occupancy_json(const Occupancy& occupancy) {
  return {{"blocks_per_sm", occupancy.blocks_per_sm},
          {"warps_per_sm", occupancy.warps_per_sm},
          {"max_warps_per_sm", occupancy.max_warps_per_sm},
          {"registers_known", occupancy.registers_known},
          {"limited_by", occupancy.limited_by}};
}

}  // namespace

std::uint64_t counter(const NamedCounters& counters, const std::string& name) {
  for (const auto& [key, value] : counters)
    if (key == name) return value;
  return 0;
}

nlohmann::ordered_json counters_json(const NamedCounters& counters) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : counters) out[name] = value;
  return out;
}

std::string ModelledTime::describe() const {
  if (!not_modelled.empty()) return "not modelled on " + hardware + ": " + not_modelled;
  std::string text = "modelled on " + hardware + ": " + amount(time_ms, "ms");
  if (terms.empty()) return text;
  text += ", bound by " + bound + " (" + amount(terms[0].ms, "ms") + ")";
  if (terms.size() > 1) text += ", then " + terms[1].name + " (" + amount(terms[1].ms, "ms") + ")";
  return text;
}

ModelledTime modelled_time(const NamedCounters& counters, const std::string& precision, double workload_flops,
                           const HardwareSpec& hardware) {
  if (!hardware.has_roofline()) throw Error("hardware key '" + hardware.key + "' has no roofline figures");
  ModelledTime model;
  model.hardware = hardware.key;
  if (counter(counters, "wgmma_flops") > 0 && hardware.compute_capability != 90) {
    model.not_modelled = "wgmma is sm_90a's and does not run on sm_" + std::to_string(hardware.compute_capability);
    return model;
  }
  auto add = [&](std::string name, double seconds, std::string what) {
    model.terms.push_back({std::move(name), seconds * 1e3, std::move(what)});
  };

  const double dram_bytes = double(counter(counters, "dram_bytes"));
  add("dram", dram_bytes / (hardware.memory_bandwidth_tb_s * 1e12),
      amount(dram_bytes, "bytes") + " / " + amount(hardware.memory_bandwidth_tb_s, "TB/s"));

  const double l2_bytes =
      32.0 * double(counter(counters, "global_load_sectors") + counter(counters, "global_store_sectors"));
  add("l2", l2_bytes / (hardware.l2_bandwidth_tb_s * 1e12),
      amount(l2_bytes, "bytes") + " / " + amount(hardware.l2_bandwidth_tb_s, "TB/s"));

  const double wavefronts = double(counter(counters, "shared_wavefronts"));
  add("shared", wavefronts / hardware.shared_wavefronts_per_s(),
      amount(wavefronts, "wavefronts") + " / " + amount(hardware.shared_wavefronts_per_s() / 1e9, "G/s"));

  const double tensor_flops = double(counter(counters, "tensor_flops"));
  if (tensor_flops > 0) {
    const bool half = precision == "bf16" || precision == "fp16";
    const double peak = half ? hardware.bf16_tflop_s : hardware.tf32_tflop_s;
    // Blackwell's peak is tcgen05's; mma.sync's rate there is not published.
    const std::string unmodelled = hardware.compute_capability >= 100
                                       ? " (a lower bound: no instruction model of mma.sync or tcgen05 on sm_" +
                                             std::to_string(hardware.compute_capability) + ")"
                                       : "";
    add("tensor", tensor_flops / (peak * 1e12),
        amount(tensor_flops, "FLOP") + " / " + amount(peak, half ? "TFLOP/s (bf16)" : "TFLOP/s (tf32)") + unmodelled);
  } else {
    add("fp32", workload_flops / (hardware.fp32_tflop_s * 1e12),
        amount(workload_flops, "FLOP (the workload's)") + " / " + amount(hardware.fp32_tflop_s, "TFLOP/s"));
  }

  // Latency (Little's law): each wait for global loads lasts a load's mean
  // latency, and only the warps resident at once wait together.
  const double waits = double(counter(counters, "global_load_waits"));
  const double loaded = 32.0 * double(counter(counters, "global_load_sectors"));
  const Occupancy resident = occupancy(counters, hardware);
  const double launches = double(std::max<std::uint64_t>(counter(counters, "launches"), 1));
  const double warps_per_block = double((counter(counters, "max_threads_per_block") + 31) / 32);
  const double concurrent = std::min(double(resident.warps_per_sm) * hardware.sm_count,
                                     double(counter(counters, "blocks")) / launches * warps_per_block);
  if (waits > 0 && loaded > 0 && concurrent > 0 && hardware.dram_latency_cycles > 0) {
    // Bytes the footprint says came from DRAM wait its latency; the rest are
    // taken as L2 hits.
    const double from_dram = std::min(double(counter(counters, "dram_read_bytes")), loaded);
    const double cycles =
        (from_dram * hardware.dram_latency_cycles + (loaded - from_dram) * hardware.l2_latency_cycles) / loaded;
    add("latency", waits / concurrent * cycles / (hardware.sm_clock_ghz * 1e9),
        amount(waits, "waits for global loads") + " / " + amount(concurrent, "warps at once") + " x " +
            amount(cycles, "clocks") + " (DRAM " + std::to_string(hardware.dram_latency_cycles) + ", L2 " +
            std::to_string(hardware.l2_latency_cycles) + ")");
  }

  std::stable_sort(model.terms.begin(), model.terms.end(),
                   [](const ModelTerm& a, const ModelTerm& b) { return a.ms > b.ms; });
  model.time_ms = model.terms.front().ms;
  model.bound = model.terms.front().name;
  return model;
}

Occupancy occupancy(const NamedCounters& counters, const HardwareSpec& hardware) {
  Occupancy result;
  const int threads = static_cast<int>(counter(counters, "max_threads_per_block"));
  const std::size_t shared = counter(counters, "max_dynamic_smem_bytes") + counter(counters, "max_static_smem_bytes");
  const int registers = static_cast<int>(counter(counters, "max_registers_per_thread"));
  result.registers_known = registers > 0 && counter(counters, "launches_without_resources") == 0;
  result.max_warps_per_sm = hardware.max_threads_per_sm / 32;
  if (threads <= 0) return result;
  const SmBlockLimits limits = sm_block_limits(hardware, threads, shared, result.registers_known ? registers : 0);
  result.blocks_per_sm = limits.least();
  result.warps_per_sm = result.blocks_per_sm * ((threads + 31) / 32);
  result.limited_by = limits.limiting();
  return result;
}

std::vector<const HardwareSpec*> roofline_hardware() {
  std::vector<const HardwareSpec*> keys;
  for (const auto& hardware : known_hardware())
    if (hardware.has_roofline()) keys.push_back(&hardware);
  return keys;
}

nlohmann::ordered_json modelled_json(const NamedCounters& counters, const std::string& precision,
                                     double workload_flops, double workload_bytes,
                                     const std::vector<const HardwareSpec*>& keys) {
  nlohmann::ordered_json by_key = nlohmann::ordered_json::object();
  for (const HardwareSpec* hardware : keys) {
    const ModelledTime model = modelled_time(counters, precision, workload_flops, *hardware);
    const double floor = floors(workload_flops, workload_bytes, *hardware).bound_ms(precision);
    const nlohmann::ordered_json floor_ms = floor > 0 ? nlohmann::ordered_json(floor) : nlohmann::ordered_json(nullptr);
    if (!model.not_modelled.empty()) {
      by_key[hardware->key] = {{"trust", "modelled"}, {"not_modelled", model.not_modelled}, {"floor_ms", floor_ms},
                               {"summary", model.describe()}};
      continue;
    }
    nlohmann::ordered_json terms = nlohmann::ordered_json::object();
    for (const ModelTerm& term : model.terms) terms[term.name] = {{"ms", term.ms}, {"what", term.what}};
    by_key[hardware->key] = {
        {"trust", "modelled"},
        {"time_ms", model.time_ms},
        {"bound", model.bound},
        {"terms", terms},
        {"floor_ms", floor_ms},
        {"above_floor", floor > 0 ? nlohmann::ordered_json(model.time_ms / floor) : nlohmann::ordered_json(nullptr)},
        {"occupancy", occupancy_json(occupancy(counters, *hardware))},
        {"summary", model.describe()}};
  }
  return by_key;
}

}  // namespace kg
