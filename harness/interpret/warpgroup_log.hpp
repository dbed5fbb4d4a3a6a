#pragma once
// wgmma is warpgroup-collective: the four warps of a warpgroup must issue the
// same wgmmas, in the same order, with the same shape, B descriptor and
// scale-d (PTX: .sync.aligned, and the descriptor must be the same across the
// warpgroup).
// Interpret mode computes each warp's rows on their own, so nothing else
// would notice warps that disagree; this log compares them, per block.
#include <array>
#include <cstdint>
#include <deque>
#include <source_location>
#include <vector>

#include "kernelgate/ptx.hpp"

namespace kg::interp {

// A wgmma's N (32 or 64) and input type (tf32: K = 8, bf16: K = 16).
struct WgmmaShape {
  int n;
  WgmmaInput input;
  int k() const { return input == WgmmaInput::bf16 ? 16 : 8; }
  bool operator==(const WgmmaShape&) const = default;
};

// The PTX name of a wgmma shape, for messages. A literal: wait sites keep the
// pointer.
inline const char* wgmma_name(WgmmaShape shape) {
  if (shape.input == WgmmaInput::bf16)
    return shape.n == 32 ? "wgmma.mma_async.m64n32k16.bf16" : "wgmma.mma_async.m64n64k16.bf16";
  return shape.n == 32 ? "wgmma.mma_async.m64n32k8.tf32" : "wgmma.mma_async.m64n64k8.tf32";
}

struct WgmmaIssue {
  WgmmaShape shape;
  std::uint64_t b_desc;
  bool accumulate;
  std::source_location where;
};

class WarpgroupLog {
 public:
  // A new block of `warps` warps (whole warpgroups).
  void reset(unsigned warps);
  // The next wgmma of `warp`; throws kg::Error when another warp of its
  // warpgroup issued a different one at the same position.
  void issue(unsigned warp, const WgmmaIssue& issue);
  // Throws kg::Error when the warps of a warpgroup issued different numbers
  // of wgmmas (on the GPU the missing ones would never complete).
  void check_complete() const;

 private:
  struct Entry {
    WgmmaIssue issue;
    unsigned warp;  // the first warp that issued it
    unsigned seen;  // how many of the 4 warps have
  };
  struct Group {
    std::deque<Entry> pending;  // positions not yet issued by every warp
    std::uint64_t first = 0;    // the position of pending.front()
    std::array<std::uint64_t, 4> issued{};
  };
  std::vector<Group> groups_;
};

}  // namespace kg::interp
