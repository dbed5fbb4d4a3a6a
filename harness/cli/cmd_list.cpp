// kernelgate list: the workloads of a suites folder.
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "kernelgate/suite.hpp"

namespace kg::cli {

Work add_list_command(CLI::App& command, CommonOptions& common) {
  add_suites_option(command, common);
  return [&common] {
    std::filesystem::path dir = suites_dir_of(common);
    for (const Suite& suite : load_suites(dir)) {
      std::string origin;
      if (suite.origin.contains("level") && suite.origin.contains("problem"))
        origin = suite.origin.value("benchmark", "") + " L" +
                 std::to_string(suite.origin["level"].get<int>()) + " #" +
                 std::to_string(suite.origin["problem"].get<int>());
      std::printf("%-40s %-20s %s\n", suite.id.c_str(), origin.c_str(), suite.title.c_str());
    }
    return 0;
  };
}

}  // namespace kg::cli
