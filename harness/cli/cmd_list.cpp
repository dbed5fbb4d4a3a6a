// kernelgate list: the workloads of a suites folder, or of one shard of it
// (--shard I/N, the share `kernelgate run --all --shard I/N` runs: the GPU
// workflow's shards select their CTest cases with it).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {

Work add_list_command(CLI::App& command, CommonOptions& common) {
  auto shard = std::make_shared<std::string>();
  command.add_option("--shard", *shard,
                     "only shard I/N of the workloads, as `run --all --shard I/N` takes them (docs/ctest.md)");
  add_suites_option(command, common);
  return [&common, shard] {
    std::filesystem::path dir = suites_dir_of(common);
    std::vector<Suite> suites = load_suites(dir);
    if (!shard->empty()) suites = shard_of(std::move(suites), parse_shard(*shard));
    // The origin column as wide as its widest entry ("kernelgate example L1 #901").
    std::vector<std::string> origins;
    int width = 20;
    for (const Suite& suite : suites) {
      std::string& origin = origins.emplace_back();
      if (suite.origin.contains("level") && suite.origin.contains("problem"))
        origin = suite.origin.value("benchmark", "") + " L" + std::to_string(suite.origin["level"].get<int>()) +
                 " #" + std::to_string(suite.origin["problem"].get<int>());
      width = std::max(width, static_cast<int>(origin.size()));
    }
    for (std::size_t i = 0; i < suites.size(); ++i)
      std::printf("%-40s %-*s %s\n", suites[i].id.c_str(), width, origins[i].c_str(), suites[i].title.c_str());
    return 0;
  };
}

}  // namespace kg::cli
