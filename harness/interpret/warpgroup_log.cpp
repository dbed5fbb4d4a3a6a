// The check that the warps of a warpgroup issue the same wgmmas
// (warpgroup_log.hpp).
#include "warpgroup_log.hpp"

#include <string>

#include "block_runner.hpp"
#include "kernelgate/error.hpp"

namespace kg::interp {

namespace {

std::string at(const WgmmaIssue& issue) {
  return describe(make_site(wgmma_name(issue.shape), issue.where));
}

}  // namespace

void WarpgroupLog::reset(unsigned warps) {
  groups_.assign((warps + 3) / 4, Group{});
}

void WarpgroupLog::issue(unsigned warp, const WgmmaIssue& issue) {
  Group& group = groups_.at(warp / 4);
  const std::uint64_t position = group.issued[warp % 4]++;
  const std::uint64_t index = position - group.first;
  if (index == group.pending.size()) {
    group.pending.push_back(Entry{issue, warp, 1});
  } else {
    Entry& entry = group.pending[index];
    if (!(entry.issue.shape == issue.shape) || entry.issue.b_desc != issue.b_desc ||
        entry.issue.accumulate != issue.accumulate)
      throw Error("the warps of warpgroup " + std::to_string(warp / 4) +
                  " disagree on wgmma number " + std::to_string(position) + ": warp " +
                  std::to_string(entry.warp) + " at " + at(entry.issue) + " and warp " +
                  std::to_string(warp) + " at " + at(issue) +
                  " pass different shapes, B descriptors or accumulate flags");
    ++entry.seen;
  }
  while (!group.pending.empty() && group.pending.front().seen == 4) {
    group.pending.pop_front();
    ++group.first;
  }
}

void WarpgroupLog::check_complete() const {
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const auto& issued = groups_[g].issued;
    if (issued[0] == issued[1] && issued[1] == issued[2] && issued[2] == issued[3]) continue;
    std::string counts;
    for (unsigned w = 0; w < 4; ++w)
      counts += (w ? ", warp " : "warp ") + std::to_string(4 * g + w) + ": " +
                std::to_string(issued[w]);
    throw Error("the warps of warpgroup " + std::to_string(g) +
                " issued different numbers of wgmmas (" + counts + ")");
  }
}

}  // namespace kg::interp
