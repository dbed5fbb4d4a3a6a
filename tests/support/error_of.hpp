#pragma once
// What bad input is told: the one line of the kg::Error an action throws.
#include <string>

#include "kernelgate/error.hpp"

namespace kg::test {

// The message of the kg::Error that `action` throws, or "" when it throws none.
template <typename Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace kg::test
