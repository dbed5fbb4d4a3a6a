#pragma once
// How the tensor cores read a tf32 operand register, for the host bodies of
// mma.sync and wgmma.
#include <bit>
#include <cstdint>

namespace kg::interp {

// Only the 19 high bits count (sign, exponent, 10-bit mantissa). Products of
// two such values have at most 22 significant bits: exact in double.
inline float tf32_operand(std::uint32_t bits) { return std::bit_cast<float>(bits & 0xffffe000u); }

}  // namespace kg::interp
