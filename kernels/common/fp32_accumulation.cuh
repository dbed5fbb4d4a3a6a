#pragma once
// How long an accumulation an FP32-labelled tensor-core candidate accepts.
//
// 3xTF32 and TF32 with a BF16 correction reach FP32-level products, but they
// chain one block FMA per K step into each FP32 accumulator, and the tensor
// cores cut every block's sum toward zero (docs/interpret-mode.md,
// "Tensor-core arithmetic"): the errors add up along the accumulation instead
// of cancelling, so the error grows with the number of products per output.
// Each such candidate accepts an accumulation only up to the length at which
// its error, in interpret mode's `hopper` arithmetic, still keeps 3x headroom
// under the FP32 bounds; the `headroom.*` tests run it at that limit.
#include <string>

namespace kg::kernels {

// Empty when `length` (what `counted` names) is within `limit`.
inline std::string fp32_accumulation_reason(long long length, long long limit, const char* counted) {
  if (length <= limit) return {};
  return std::string(counted) + " = " + std::to_string(length) + " is above " + std::to_string(limit) +
         ": FP32-level accuracy on tensor cores, which truncate every block's sum, keeps 3x headroom "
         "under the fp32 bounds only up to there";
}

}  // namespace kg::kernels
