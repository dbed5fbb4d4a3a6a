#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011): a counter-based generator, so value i of a tensor depends only on
// the key and i, never on how the tensor is split among threads or devices.
// The generator is Random123's, the library of its authors; cuRAND implements
// the same one, so a later GPU input generator can draw the same values on the
// device.
#include <array>
#include <cstdint>

#include <Random123/philox.h>

namespace kg {

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

inline PhiloxCounter philox4x32_10(const PhiloxCounter& counter, const PhiloxKey& key) {
  using Generator = r123::Philox4x32_R<10>;  // ten rounds, as Random123's Philox4x32 and cuRAND
  const Generator::ctr_type block = {{counter[0], counter[1], counter[2], counter[3]}};
  const Generator::key_type seed = {{key[0], key[1]}};
  const Generator::ctr_type out = Generator{}(block, seed);
  return {out[0], out[1], out[2], out[3]};
}

}  // namespace kg
