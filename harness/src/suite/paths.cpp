// Where the stock suites and baselines live: the source tree this binary was
// built from, overridable with --suites / --baselines on every command.
#include "kernelgate/suite.hpp"

namespace kg {

std::filesystem::path default_suites_dir() { return KERNELGATE_DEFAULT_SUITES_DIR; }
std::filesystem::path default_baselines_dir() { return KERNELGATE_DEFAULT_BASELINES_DIR; }

}  // namespace kg
