#pragma once
// The roofline model of a counted run (docs/roofline.md): the time a GPU
// needs at least for what interpret mode counted a kernel doing, as the
// largest of one term per resource, each the work on that resource over its
// peak (hardware.hpp). A `modelled` figure, never a measurement: it ranks and
// gates nothing on a GPU key.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/hardware.hpp"

namespace kg {

// Interpret mode's counters by name (kernelgate/interpret/counters.hpp).
using NamedCounters = std::vector<std::pair<std::string, std::uint64_t>>;

// The value of a named counter; 0 when it is absent.
std::uint64_t counter(const NamedCounters& counters, const std::string& name);
// The counters as a JSON object, in their order (reports, baselines, model).
nlohmann::ordered_json counters_json(const NamedCounters& counters);

struct ModelTerm {
  std::string name;  // dram | l2 | shared | tensor | fp32
  double ms = 0;
  std::string what;  // the work and the peak it was divided by, in words
};

struct ModelledTime {
  std::string hardware;
  double time_ms = 0;            // the largest term
  std::string bound;             // its name
  std::vector<ModelTerm> terms;  // largest first
  // Why nothing is modelled on this key (a candidate whose instructions the
  // key's GPU does not have: wgmma on sm_100); then no time, bound or terms.
  std::string not_modelled;
  // "modelled on h200: 0.2934 ms, bound by dram (0.2934 ms), then l2 (0.2211 ms)"
  std::string describe() const;
};

// The terms:
//   dram    dram_bytes (the footprint, a lower bound of DRAM traffic) / DRAM bandwidth
//   l2      32 x (global load + store sectors) / L2 bandwidth
//   shared  shared_wavefronts / (one wavefront per SM and clock)
//   tensor  tensor_flops / the dense tensor peak of the precision (bf16 and
//           fp16: BF16; any other: TF32, as 3xTF32 kernels run on TF32 units)
//           On a key of compute capability 10.0 (Blackwell) interpret mode
//           has no instruction model (tcgen05; no published mma.sync
//           rate): the term is a lower bound, and says so.
//   fp32    workload_flops / FP32 peak, for a kernel that issues no
//           tensor-core FLOPs: interpret mode does not count FP32
//           instructions, so the workload's own FLOPs stand for them.
//   latency global_load_waits / the warps resident at once (the occupancy
//           below, over the key's SMs, or the launch's warps where fewer) x
//           the mean latency of a loaded byte (DRAM for the footprint's
//           reads, L2 for the other sectors): where too few warps are
//           resident to cover the latency of the loads they wait for. Only
//           for counters that have global_load_waits.
// Counters with wgmma FLOPs on a key whose GPU is not sm_90: not_modelled.
// Throws kg::Error for a key without roofline figures (cpu).
ModelledTime modelled_time(const NamedCounters& counters, const std::string& precision, double workload_flops,
                           const HardwareSpec& hardware);

// The blocks one SM of `hardware` holds at once of the counted run's launch:
// its threads, dynamic and static shared memory and the registers ptxas gave
// its kernel in the gpu build (kernels/resources.json), the largest of each
// over the run's launches. Without registers (a kernel the table does not
// know), the other limits alone: an upper bound.
struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int max_warps_per_sm = 0;
  bool registers_known = false;
  std::string limited_by;  // threads | blocks | shared | registers
};
Occupancy occupancy(const NamedCounters& counters, const HardwareSpec& hardware);

// The keys that have roofline figures, in known_hardware order.
std::vector<const HardwareSpec*> roofline_hardware();

// The roofline on each of `keys`, with the workload's floor there, as the
// reports (model.hardware, docs/report.schema.json) and `kernelgate model`
// give it: key -> {trust "modelled", time_ms, bound, terms {name: {ms,
// what}}, floor_ms, above_floor, occupancy {blocks_per_sm, warps_per_sm,
// max_warps_per_sm, registers_known, limited_by}, summary}; floor_ms and
// above_floor are null without a floor.
nlohmann::ordered_json modelled_json(const NamedCounters& counters, const std::string& precision,
                                     double workload_flops, double workload_bytes,
                                     const std::vector<const HardwareSpec*>& keys);

}  // namespace kg
