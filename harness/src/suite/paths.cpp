// Where the suites and baselines are found when no option names them: the
// folders of that name in the working directory (a kernelgate checkout).
// Never the tree the binary was built from: a binary copied to a runner or
// used from another checkout must read what is in front of it.
#include "kernelgate/error.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

std::filesystem::path default_suites_dir() { return "suites"; }
std::filesystem::path default_baselines_dir() { return "baselines"; }

std::filesystem::path resolve_suites_dir(const std::string& option) {
  const std::filesystem::path dir = option.empty() ? default_suites_dir() : std::filesystem::path(option);
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return dir;
  if (option.empty())
    throw Error("no suites folder: without --suites kernelgate reads ./suites; run it from a kernelgate "
                "checkout or give --suites DIR");
  throw Error("--suites " + option + ": no such folder");
}

}  // namespace kg
