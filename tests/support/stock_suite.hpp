#pragma once
// A stock workload's suite (suites/<id>.json), for the tests that read one.
#include <filesystem>
#include <string>

#include "kernelgate/detail/suite.hpp"

namespace kg::test_support {

inline Suite stock_suite(const std::string& id) {
  return find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), id);
}

}  // namespace kg::test_support
