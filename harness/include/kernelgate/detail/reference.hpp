#pragma once
// Inputs, parameters and the float64 host reference of a workload.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernelgate/detail/suite.hpp"

namespace kg {

// A host tensor, row-major contiguous.
template <typename T>
struct HostTensor {
  std::vector<std::int64_t> shape;
  std::vector<T> data;
  std::int64_t numel() const;
};
using Tensors = std::map<std::string, HostTensor<float>>;  // by tensor name

template <typename T>
std::int64_t HostTensor<T>::numel() const {
  std::int64_t n = 1;
  for (std::int64_t extent : shape) n *= extent;
  return n;
}

// The counter-based generator behind generate_inputs (docs/inputs.md): the
// 64-bit key of one tensor, and its value at a flat index.
std::uint64_t input_key(const std::string& workload, const Axes& axes, std::uint64_t seed,
                        const std::string& tensor);
// U[0,1) with 24 random bits: Philox4x32-10 of counter (index lo, index hi, 0, 0).
float uniform_at(std::uint64_t key, std::uint64_t index);
// A standard normal draw, Box-Muller on words 0 and 1 of the same Philox
// output (docs/inputs.md): sqrt(-2 ln u1) cos(2 pi u2) in float64, with u1 in
// (0, 1] and u2 in [0, 1), each of 24 bits.
double normal_at(std::uint64_t key, std::uint64_t index);
// The distribution of one tensor (its "init"), resolved at the given axes:
// U[low, high) (uniform, uniform_fan_in), N(mean, std^2) (normal) or the
// integers of [low, high) (randint).
struct Distribution {
  bool normal = false;
  bool integer = false;
  double low = 0;
  double high = 1;
  double mean = 0;
  double std = 1;
  // The tensor's value at flat index i, rounded once to float.
  float at(std::uint64_t key, std::uint64_t index) const;
};
Distribution distribution(const Suite& suite, const TensorSpec& tensor, const Axes& axes);
// The same of one draw; `what` names it in errors.
Distribution distribution(const Suite& suite, const std::string& what, const TensorInit& init, const Axes& axes);
// Fills one tensor: value[i] = distribution.at(key, i), or for an input
// built by ops (TensorInit::then) their result, rounded once to float.
HostTensor<float> generate_tensor(const Suite& suite, const TensorSpec& tensor, const Axes& axes,
                                  std::uint64_t seed);
// Box `box` of the same tensor in float64, generating only what the box
// depends on.
ops::Region generated_region(const Suite& suite, const TensorSpec& tensor, const Axes& axes, std::uint64_t seed,
                             const ops::Box& box);

// A generated tensor as its dtype lays it out in memory (what a candidate's
// buffer holds): float32 as generated; int64 and bool from the integers of
// its randint draw, which the loader requires of them.
std::vector<std::byte> tensor_bytes(const HostTensor<float>& tensor, DType dtype);

// Every input and parameter of the suite, generated from
// (workload id, axes, seed, tensor name) with a counter-based generator:
// identical on every machine (docs/inputs.md).
Tensors generate_inputs(const Suite& suite, const Axes& axes, std::uint64_t seed);

// The generator seed of input set `set` of a run with seed `run_seed`: set 0
// is A, 1 is B, 2 + k the inputs of timed sample k (docs/inputs.md). Derived
// through SHA-256, so that a child told the seeds of some sets cannot work
// out the seeds of the sets it has not been told yet.
std::uint64_t input_set_seed(std::uint64_t run_seed, std::uint64_t set);

// The whole output in float64, multi-threaded: the suite's forward pass
// evaluated op by op (kernelgate/detail/ops.hpp). Ops compute only what the output
// reads (a pool whose windows stop short of the end never reads the last rows).
HostTensor<double> reference_output(const Suite& suite, const Axes& axes, const Tensors& inputs);

// One output element (flat index) in float64: the same forward pass on the
// boxes of each tensor that this element depends on; used to sample
// full-size outputs.
double reference_point(const Suite& suite, const Axes& axes, const Tensors& inputs,
                       std::int64_t flat_index);
// The same element of the inputs generate_inputs(suite, axes, seed) would
// give, generating only the values in its boxes: what checking a few points
// of a fresh input set costs without generating the whole set.
double reference_point_of_seed(const Suite& suite, const Axes& axes, std::uint64_t seed, std::int64_t flat_index);

}  // namespace kg
