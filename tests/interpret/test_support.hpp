#pragma once
// Helpers shared by the interpret-mode tests.
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernelgate/error.hpp"

namespace kg::test {

// Sets an environment variable for the lifetime of the object.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (previous_)
      setenv(name_, previous_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

// "file:line" of the line of a test kernel source that carries `// KG-MARK <mark>`.
inline std::string marked_line(const std::string& kernel_file, const std::string& mark) {
  const std::string path = std::string(KERNELGATE_TEST_DATA_DIR) + "/interpret/kernels/" + kernel_file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto at = line.find("KG-MARK " + mark);
    if (at != std::string::npos && line.size() == at + 8 + mark.size())
      return kernel_file + ":" + std::to_string(number);
  }
  throw std::runtime_error("no KG-MARK " + mark + " in " + path);
}

// Runs `body`, expects a kg::Error, and returns its message.
template <typename Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const kg::Error& error) {
    return error.what();
  }
  return "(no kg::Error thrown)";
}

inline const char* const kAllOrders[] = {"forward", "reverse", "random:7", "random:12345"};

}  // namespace kg::test
