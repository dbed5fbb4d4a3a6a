// The lane exchange of shfl.sync and vote.sync, exactly as the PTX ISA's
// pseudo-code for shfl.sync defines it (modes idx, up, down, bfly), with CUDA's
// encoding of `width` into the clamp and segment-mask operand.
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/interpret/sync.hpp"

namespace kg::interp {

namespace {

template <ShuffleMode mode>
void combine_shuffle(void* const* payloads, unsigned mask) {
  for (int lane = 0; lane < 32; ++lane) {
    if ((mask >> lane & 1u) == 0) continue;
    auto& payload = *static_cast<ShufflePayload*>(payloads[lane]);
    const int width = payload.width;
    if (width < 1 || width > 32 || (width & (width - 1)) != 0)
      throw Error("width " + std::to_string(width) + " is not a power of two from 1 to 32");
    // CUDA passes c = ((32 - width) << 8) | clamp, clamp 0 for up, 31 otherwise.
    const int segment_mask = (32 - width) & 31;
    const int clamp = mode == ShuffleMode::up ? 0 : 31;
    const int b = payload.operand & 31;
    const int max_lane = (lane & segment_mask) | (clamp & ~segment_mask);
    const int min_lane = lane & segment_mask;
    int source = lane;
    bool in_range = true;
    switch (mode) {
      case ShuffleMode::idx:
        source = min_lane | (b & ~segment_mask);
        in_range = source <= max_lane;
        break;
      case ShuffleMode::up:
        source = lane - b;
        in_range = source >= max_lane;
        break;
      case ShuffleMode::down:
        source = lane + b;
        in_range = source <= max_lane;
        break;
      case ShuffleMode::bfly:
        source = lane ^ b;
        in_range = source <= max_lane;
        break;
    }
    if (!in_range) source = lane;  // out of the segment: the lane keeps its own value
    if ((mask >> source & 1u) == 0)
      throw Error("lane " + std::to_string(lane) + " reads lane " + std::to_string(source) +
                  ", which is not in the mask");
    payload.result = static_cast<ShufflePayload*>(payloads[source])->value;
  }
}

}  // namespace

void combine_shuffle_idx(void* const* payloads, unsigned mask) {
  combine_shuffle<ShuffleMode::idx>(payloads, mask);
}
void combine_shuffle_up(void* const* payloads, unsigned mask) {
  combine_shuffle<ShuffleMode::up>(payloads, mask);
}
void combine_shuffle_down(void* const* payloads, unsigned mask) {
  combine_shuffle<ShuffleMode::down>(payloads, mask);
}
void combine_shuffle_xor(void* const* payloads, unsigned mask) {
  combine_shuffle<ShuffleMode::bfly>(payloads, mask);
}

void combine_vote(void* const* payloads, unsigned mask) {
  unsigned ballot = 0;
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1u) && static_cast<VotePayload*>(payloads[lane])->predicate != 0)
      ballot |= 1u << lane;
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1u) static_cast<VotePayload*>(payloads[lane])->ballot = ballot;
}

void combine_nothing(void* const*, unsigned) {}

}  // namespace kg::interp
