#pragma once
// Reading a suite file field by field: every accessor knows the file and the
// JSON path of what it reads, so every error names both
// ("<file>: $.axes.batch.default: expected an integer, got string \"8\"").
#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"

namespace kg::suite_json {

using Json = nlohmann::ordered_json;

class Field {
 public:
  Field(const std::string& file, std::string path, const Json& value)
      : file_(file), path_(std::move(path)), value_(value) {}

  const Json& json() const { return value_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(file_ + ": " + path_ + ": " + what);
  }

  // Describes a value for error messages: its JSON type and a short dump.
  static std::string describe(const Json& value) {
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    if (value.is_object()) return "an object";
    if (value.is_array()) return "an array";
    return std::string(value.type_name()) + " " + text;
  }

  const Field& expect_object() const {
    if (!value_.is_object()) fail("expected an object, got " + describe(value_));
    return *this;
  }
  const Field& expect_array() const {
    if (!value_.is_array()) fail("expected an array, got " + describe(value_));
    return *this;
  }

  // Every key must be allowed; every required key present.
  const Field& expect_keys(const std::set<std::string>& required,
                           const std::set<std::string>& optional = {}) const {
    expect_object();
    for (const auto& [key, unused] : value_.items()) {
      if (!required.count(key) && !optional.count(key)) {
        std::string allowed;
        std::set<std::string> all = required;
        all.insert(optional.begin(), optional.end());
        for (const auto& name : all) allowed += (allowed.empty() ? "" : ", ") + name;
        child(key).fail("unknown key (allowed here: " + allowed + ")");
      }
    }
    for (const auto& key : required)
      if (!value_.contains(key)) child(key).fail("missing required field");
    return *this;
  }

  bool has(const std::string& key) const { return value_.contains(key); }

  Field child(const std::string& key) const {
    static const Json null_value;
    std::string path = path_ + "." + key;
    return Field(file_, path, value_.contains(key) ? value_.at(key) : null_value);
  }
  Field at(std::size_t index) const {
    return Field(file_, path_ + "[" + std::to_string(index) + "]", value_.at(index));
  }

  std::string as_string() const {
    if (!value_.is_string()) fail("expected a string, got " + describe(value_));
    return value_.get<std::string>();
  }
  std::string as_nonempty_string() const {
    std::string text = as_string();
    if (text.empty()) fail("must not be empty");
    return text;
  }
  std::int64_t as_integer() const {
    if (!value_.is_number_integer()) fail("expected an integer, got " + describe(value_));
    return value_.get<std::int64_t>();
  }
  double as_number() const {
    if (!value_.is_number()) fail("expected a number, got " + describe(value_));
    return value_.get<double>();
  }
  bool as_bool() const {
    if (!value_.is_boolean()) fail("expected true or false, got " + describe(value_));
    return value_.get<bool>();
  }

 private:
  const std::string& file_;
  std::string path_;
  const Json& value_;
};

}  // namespace kg::suite_json
