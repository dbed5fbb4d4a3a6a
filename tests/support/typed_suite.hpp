#pragma once
// Small workloads with tensors of every dtype (docs/suite-format.md,
// "Dtypes"). The first, the cross entropy of masked logits, is KernelBench's
// problems 93 (a bool mask) and 95 (int64 class indices) in one. Its targets
// reach the loss through a reshape (which keeps their dtype) and gather
// (which needs it); their upper bound is an axis, as
// torch.randint(0, num_classes, ...).
#include <string>

#include <nlohmann/json.hpp>

namespace kg::test_support {

inline const char* typed_suite_json() {
  return R"({
    "kind": "kernelgate-suite", "schema_version": 1,
    "id": "typed_inputs", "title": "cross entropy of masked logits",
    "origin": {"benchmark": "test"},
    "axes": {"batch_size": {"default": 6, "min": 1, "max": 64, "description": "rows"},
             "num_classes": {"default": 5, "min": 2, "max": 64, "description": "classes"}},
    "presets": {"ci": {"batch_size": 4}},
    "tensors": [
      {"name": "logits", "role": "input", "shape": ["batch_size", "num_classes"],
       "init": {"distribution": "uniform", "low": 0, "high": 1}},
      {"name": "mask", "role": "input", "dtype": "bool", "shape": ["batch_size", "num_classes"],
       "init": {"distribution": "randint", "low": 0, "high": 2}},
      {"name": "targets", "role": "input", "dtype": "int64", "shape": ["batch_size"],
       "init": {"distribution": "randint", "low": 0, "high": "num_classes"}},
      {"name": "loss", "role": "output", "shape": [1]}
    ],
    "forward": [
      {"op": "multiply", "inputs": ["logits", "mask"], "output": "masked"},
      {"op": "log_softmax", "inputs": ["masked"], "output": "log_p", "dim": 1},
      {"op": "reshape", "inputs": ["targets"], "output": "picks", "shape": ["batch_size", 1]},
      {"op": "gather", "inputs": ["log_p", "picks"], "output": "picked", "dim": 1},
      {"op": "mean", "inputs": ["picked"], "output": "mean_picked", "dims": [0]},
      {"op": "scale", "inputs": ["mean_picked"], "output": "loss", "value": -1}
    ],
    "tolerance": {"fp32": {"atol": 1e-5, "rtol": 1e-5, "rel_l2": 1e-5}},
    "contract": {"no_mutation": true, "no_aliasing": true}
  })";
}

// KernelBench's problem 51 in small: the position of each row's first
// maximum, an int64 output. The same axes as the first (num_classes as the
// columns); few distinct values, so that rows tie.
inline std::string positions_suite_json() {
  nlohmann::ordered_json suite = nlohmann::ordered_json::parse(typed_suite_json());
  suite["id"] = "positions";
  suite["title"] = "argmax of each row";
  suite["tensors"] = nlohmann::ordered_json::parse(R"([
    {"name": "x", "role": "input", "shape": ["batch_size", "num_classes"],
     "init": {"distribution": "randint", "low": 0, "high": 3}},
    {"name": "positions", "role": "output", "dtype": "int64", "shape": ["batch_size"]}])");
  suite["forward"] = nlohmann::ordered_json::parse(R"([{"op": "argmax", "inputs": ["x"], "output": "positions", "dim": 1}])");
  return suite.dump();
}

}  // namespace kg::test_support
