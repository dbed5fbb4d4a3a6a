#pragma once
// The one exception type of the harness: every user-facing failure (bad suite
// file, unknown workload, unwritable folder...) is a kg::Error whose message is
// one line naming the problem; the CLI prints it and exits non-zero.
#include <stdexcept>
#include <string>

namespace kg {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kg
