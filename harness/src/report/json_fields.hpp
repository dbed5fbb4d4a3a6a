#pragma once
// Strict readers for the JSON files of the report concern (baselines, reports):
// each failure is one kg::Error naming the file and the JSON path, e.g.
// "baselines/x/h200.json: /records/2/latency/mean_ms: expected a number".
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"

namespace kg::report_detail {

class JsonReader {
 public:
  JsonReader(const nlohmann::ordered_json& json, std::string where, std::string path = "")
      : json_(json), where_(std::move(where)), path_(std::move(path)) {}

  const nlohmann::ordered_json& json() const { return json_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(where_ + ": " + (path_.empty() ? "/" : path_) + ": " + what);
  }
  void require_object() const {
    if (!json_.is_object()) fail("expected an object");
  }
  void require_array() const {
    if (!json_.is_array()) fail("expected an array");
  }
  // The schema's additionalProperties: false. A field this kernelgate does not
  // know would be dropped by the next write, so it is refused instead.
  void allow_only(std::initializer_list<const char*> keys) const {
    require_object();
    for (const auto& [key, value] : json_.items()) {
      bool known = false;
      for (const char* allowed : keys) known = known || key == allowed;
      if (!known) JsonReader(value, where_, path_ + "/" + key).fail("unknown field (see the schema)");
    }
  }
  bool has(const std::string& key) const {
    return json_.is_object() && json_.contains(key) && !json_.at(key).is_null();
  }
  JsonReader at(const std::string& key) const {
    require_object();
    if (!json_.contains(key)) JsonReader(json_, where_, path_ + "/" + key).fail("missing");
    return JsonReader(json_.at(key), where_, path_ + "/" + key);
  }
  JsonReader at(std::size_t index) const {
    return JsonReader(json_.at(index), where_, path_ + "/" + std::to_string(index));
  }
  std::size_t size() const { return json_.size(); }

  std::string string() const {
    if (!json_.is_string()) fail("expected a string");
    return json_.get<std::string>();
  }
  double number() const {
    if (!json_.is_number()) fail("expected a number");
    return json_.get<double>();
  }
  double non_negative() const {
    double value = number();
    if (!(value >= 0) || !std::isfinite(value)) fail("expected a finite number >= 0");
    return value;
  }
  std::int64_t integer() const {
    if (!json_.is_number_integer()) fail("expected an integer");
    if (json_.is_number_unsigned() &&
        json_.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail("integer out of range");
    return json_.get<std::int64_t>();
  }
  std::int64_t integer_in(std::int64_t min, std::int64_t max) const {
    const std::int64_t value = integer();
    if (value < min || value > max)
      fail("expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
    return value;
  }
  bool boolean() const {
    if (!json_.is_boolean()) fail("expected true or false");
    return json_.get<bool>();
  }

  std::string string_or(const std::string& key, std::string fallback) const {
    return has(key) ? at(key).string() : fallback;
  }
  std::optional<double> optional_number(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    return at(key).number();
  }

 private:
  const nlohmann::ordered_json& json_;
  std::string where_;
  std::string path_;
};

// Reads and parses a JSON file. Every failure is a kg::Error naming the file:
// unreadable, not JSON (with the parser's position), or a number out of
// range (1e999), which the parser reports without a position; then the JSON
// path reached so far is named.
nlohmann::ordered_json read_json_file(const std::filesystem::path& file);

}  // namespace kg::report_detail
