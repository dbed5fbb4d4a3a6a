#pragma once
// Helpers for suite tests: the stock suites, and malformed copies of them.
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::test {

inline std::filesystem::path stock_suite_file(const std::string& id) {
  return std::filesystem::path(KERNELGATE_SOURCE_ROOT) / "suites" / "kernelbench" / (id + ".json");
}

inline nlohmann::ordered_json stock_suite_json(const std::string& id) {
  std::ifstream in(stock_suite_file(id));
  return nlohmann::ordered_json::parse(in);
}

// A folder of its own for each test, removed at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("kernelgate-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::filesystem::path write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

// The error load_suite gives for the stock l1_071 suite after `edit`.
inline std::string load_error(const TempDir& dir, const std::function<void(nlohmann::ordered_json&)>& edit,
                              std::string* file_name = nullptr) {
  nlohmann::ordered_json json = stock_suite_json("l1_071_conv_transposed_2d");
  edit(json);
  auto file = write_text(dir.path() / "suite.json", json.dump(2));
  if (file_name) *file_name = file.string();
  try {
    load_suite(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The stock l1_071 suite after `edit`, loaded (the edit must keep it valid).
inline Suite load_edited(const TempDir& dir, const std::function<void(nlohmann::ordered_json&)>& edit) {
  nlohmann::ordered_json json = stock_suite_json("l1_071_conv_transposed_2d");
  edit(json);
  return load_suite(write_text(dir.path() / "edited.json", json.dump(2)));
}

}  // namespace kg::test
