// Splitting the workloads of a suites folder over the runners of one GPU
// kind (docs/ctest.md, "Sharding"): every workload in exactly one shard, the
// same split on every runner, whatever order their files were found in.
#include <algorithm>
#include <charconv>
#include <string_view>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

Shard parse_shard(const std::string& text) {
  const std::string usage = "--shard: must be I/N, shard I of N with 1 <= I <= N <= 1000, not '" + text + "'";
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) throw Error(usage);
  auto number = [&](std::string_view part) {
    int value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || error != std::errc() || end != part.data() + part.size()) throw Error(usage);
    return value;
  };
  const Shard shard{.index = number(std::string_view(text).substr(0, slash)),
                    .count = number(std::string_view(text).substr(slash + 1))};
  if (shard.index < 1 || shard.count > 1000 || shard.index > shard.count) throw Error(usage);
  return shard;
}

std::vector<Suite> shard_of(std::vector<Suite> suites, const Shard& shard) {
  // By id, then every count-th from the index-th: neighbours in the folder
  // (often of one size class) land on different runners.
  std::sort(suites.begin(), suites.end(), [](const Suite& a, const Suite& b) { return a.id < b.id; });
  std::vector<Suite> taken;
  for (std::size_t i = static_cast<std::size_t>(shard.index - 1); i < suites.size();
       i += static_cast<std::size_t>(shard.count))
    taken.push_back(std::move(suites[i]));
  return taken;
}

}  // namespace kg
