#pragma once
// A process-wide interpret-mode setting that a process can pin: once pinned,
// the environment is not read for it again (the runner's child pins its
// request's settings before any candidate code runs). Thread-safe.
#include <mutex>
#include <optional>

namespace kg::interp {

template <typename T>
class PinnedSetting {
 public:
  void pin(const T& value) {
    std::lock_guard lock(mutex_);
    value_ = value;
  }
  // The pinned value, else `from_environment()`.
  template <typename FromEnvironment>
  T current(FromEnvironment from_environment) const {
    {
      std::lock_guard lock(mutex_);
      if (value_) return *value_;
    }
    return from_environment();
  }

 private:
  mutable std::mutex mutex_;
  std::optional<T> value_;
};

}  // namespace kg::interp
