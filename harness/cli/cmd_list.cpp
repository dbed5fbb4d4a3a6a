// kernelgate list: the workloads of a suites folder.
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "kernelgate/suite.hpp"

namespace kg::cli {
namespace {

const CommandRegistrar registrar{{"list", [](CLI::App& app, CommonOptions& common, int&) {
  CLI::App* command = app.add_subcommand("list", "List the workloads of the suites folder");
  add_suites_option(*command, common);
  command->callback([&common] {
    std::filesystem::path dir = suites_dir_of(common);
    for (const Suite& suite : load_suites(dir)) {
      std::string origin;
      if (suite.origin.contains("level") && suite.origin.contains("problem"))
        origin = suite.origin.value("benchmark", "") + " L" +
                 std::to_string(suite.origin["level"].get<int>()) + " #" +
                 std::to_string(suite.origin["problem"].get<int>());
      std::printf("%-40s %-20s %s\n", suite.id.c_str(), origin.c_str(), suite.title.c_str());
    }
  });
}}};

}  // namespace
}  // namespace kg::cli
