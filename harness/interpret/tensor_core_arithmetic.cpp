// The arithmetic modes of the tensor-core host bodies
// (kernelgate/interpret/tensor_core_arithmetic.hpp).
#include "kernelgate/interpret/tensor_core_arithmetic.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "kernelgate/error.hpp"
#include "pinned_setting.hpp"

namespace kg::interp {

namespace {

PinnedSetting<TensorCoreArithmetic> pinned;

// The exponent the hardware aligns by, of a finite non-zero value: that of
// its leading bit, but never below FP32's smallest normal exponent (a
// subnormal keeps -126 and a significand below 1).
int exponent_of(float x) {
  const unsigned field = (std::bit_cast<std::uint32_t>(x) >> 23) & 0xffu;
  return field == 0 ? -126 : static_cast<int>(field) - 127;
}

// 2^e as a double, for e within double's normal range.
double power_of_two(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(1023 + e) << 52); }

// Bits kept below the leading bit of the largest term.
constexpr int kFractionBits = 25;

// Rounds a double toward zero to FP32; beyond FP32's range the model gives
// infinity, as the hardware's exponent field overflows.
float truncate_to_float(double x) {
  if (std::fabs(x) >= 0x1p128) return std::copysign(std::numeric_limits<float>::infinity(), x);
  const float f = static_cast<float>(x);
  // Rounded away from zero: one unit less in magnitude (f is not zero then).
  // No branch: which way a sum rounds is as good as random, so a branch on
  // it would be mispredicted about half the time, once per element.
  const std::uint32_t away = std::fabs(static_cast<double>(f)) > std::fabs(x);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) - away);
}

// NaN wins, opposite infinities make NaN, else the infinity.
float special_sum(const float* a, const float* b, int count, float c) {
  bool nan = std::isnan(c), plus_inf = c == INFINITY, minus_inf = c == -INFINITY;
  for (int i = 0; i < count; ++i) {
    const double p = static_cast<double>(a[i]) * b[i];
    nan = nan || std::isnan(p);
    plus_inf = plus_inf || p == INFINITY;
    minus_inf = minus_inf || p == -INFINITY;
  }
  if (nan || (plus_inf && minus_inf)) return std::numeric_limits<float>::quiet_NaN();
  return plus_inf ? INFINITY : -INFINITY;
}

// The exponent of an operand for the anchor: exponent_of for a finite
// non-zero value, far below any other for zero (its product counts for
// nothing).
constexpr int kZeroExponent = -100000;
int anchor_exponent(float x) { return x == 0 ? kZeroExponent : exponent_of(x); }

float nearest_block_fma(const float* a, const float* b, int count, float c) {
  // Products of two TF32 (11 significant bits) or BF16 (8) values are exact
  // in double, and so is the sum of a few of them at the magnitudes kernels
  // see; it is rounded to FP32 once.
  double sum = c;
  for (int i = 0; i < count; ++i) sum += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(sum);
}

}  // namespace

TensorCoreArithmetic parse_tensor_core_arithmetic(const std::string& text) {
  if (text.empty() || text == "hopper") return TensorCoreArithmetic::hopper;
  if (text == "nearest") return TensorCoreArithmetic::nearest;
  throw Error("KG_INTERPRET_TENSOR_CORES='" + text + "' is not one of hopper, nearest");
}

std::string to_string(TensorCoreArithmetic arithmetic) {
  switch (arithmetic) {
    case TensorCoreArithmetic::nearest: return "nearest";
    case TensorCoreArithmetic::skipped: return "skipped";
    case TensorCoreArithmetic::hopper: break;
  }
  return "hopper";
}

TensorCoreArithmetic tensor_core_arithmetic_from_environment() {
  const char* text = std::getenv("KG_INTERPRET_TENSOR_CORES");
  return parse_tensor_core_arithmetic(text == nullptr ? "" : text);
}

void pin_tensor_core_arithmetic(TensorCoreArithmetic arithmetic) { pinned.pin(arithmetic); }

TensorCoreArithmetic current_tensor_core_arithmetic() {
  return pinned.current(tensor_core_arithmetic_from_environment);
}

float tensor_core_block_fma(const float* a, const float* b, int count, float c,
                            TensorCoreArithmetic arithmetic) {
  tensor_core_tile(a, b, 1, 1, count, &c, arithmetic);
  return c;
}

// Most of an interpret-mode tensor-core kernel's time is spent here, in loops
// the vectoriser takes: on x86-64 a second copy is compiled for AVX2 (twice
// the vector width of the baseline's SSE2) and picked at load time where the
// processor has it. Both copies compute the same bits: the sums are exact
// integer sums and every conversion is IEEE's (docs/status.md has the
// times).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KG_TILE_TARGETS __attribute__((target_clones("avx2", "default")))
#else
#define KG_TILE_TARGETS
#endif

KG_TILE_TARGETS
void tensor_core_tile(const float* a, const float* b, int rows, int n, int k, float* acc,
                      TensorCoreArithmetic arithmetic) {
  if (arithmetic == TensorCoreArithmetic::skipped) return;
  if (arithmetic == TensorCoreArithmetic::nearest) {
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < n; ++j) acc[r * n + j] = nearest_block_fma(a + r * k, b + j * k, k, acc[r * n + j]);
    return;
  }
  constexpr int kMaxK = 16, kMaxRows = 16, kMaxN = 64;
  if (k > kMaxK || rows > kMaxRows || n > kMaxN)
    throw Error("tensor_core_tile: " + std::to_string(rows) + " x " + std::to_string(n) + " x " +
                std::to_string(k) + " is larger than one instruction's tile (16 x 64 x 16)");
  // The operands' exponents, found once per tile: the host bodies of wgmma
  // spend most of their time here. An element is special exactly when its
  // row of A, its column of B or its accumulator holds a non-finite value.
  int ea[kMaxRows][kMaxK], eb[kMaxN][kMaxK];
  bool row_finite[kMaxRows], column_finite[kMaxN];
  for (int r = 0; r < rows; ++r) {
    row_finite[r] = true;
    for (int i = 0; i < k; ++i) {
      row_finite[r] = row_finite[r] && std::isfinite(a[r * k + i]);
      ea[r][i] = anchor_exponent(a[r * k + i]);
    }
  }
  for (int j = 0; j < n; ++j) {
    column_finite[j] = true;
    for (int i = 0; i < k; ++i) {
      column_finite[j] = column_finite[j] && std::isfinite(b[j * k + i]);
      eb[j][i] = anchor_exponent(b[j * k + i]);
    }
  }
  for (int r = 0; r < rows; ++r) {
    const float* row = a + r * k;
    for (int j = 0; j < n; ++j) {
      const float* column = b + j * k;
      float& out = acc[r * n + j];
      if (!row_finite[r] || !column_finite[j] || !std::isfinite(out)) {
        out = special_sum(row, column, k, out);
        continue;
      }
      // The anchor: the largest exponent among the products (the sum of
      // their operands' exponents: a product of significands in [2, 4) keeps
      // the exponent of its operands, so its carry bit stays within the kept
      // bits) and the accumulator's.
      int anchor = out == 0 ? kZeroExponent : exponent_of(out);
      for (int i = 0; i < k; ++i) anchor = std::max(anchor, ea[r][i] + eb[j][i]);
      if (anchor < -1000) {  // every term is zero
        out = 0.0f;
        continue;
      }
      // Every term cut toward zero to a multiple of 2^(anchor - 25), then
      // summed exactly: a term is below 2^(anchor + 2), so below 2^27 units
      // (an int32 holds it), and the products are exact in double (at most 22
      // significant bits), as is their scaling by a power of two.
      const double scale = power_of_two(kFractionBits - anchor);
      std::int64_t units = static_cast<std::int32_t>(static_cast<double>(out) * scale);
      for (int i = 0; i < k; ++i)
        units += static_cast<std::int32_t>(static_cast<double>(row[i]) * column[i] * scale);
      out = units == 0 ? 0.0f : truncate_to_float(static_cast<double>(units) * power_of_two(anchor - kFractionBits));
    }
  }
}

}  // namespace kg::interp
