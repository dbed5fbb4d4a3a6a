// The strict JSON reader (kernelgate/detail/json_reader.hpp).
#include "kernelgate/detail/json_reader.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace kg {

void JsonReader::fail(const std::string& what) const { throw Error(where_ + ": " + path_ + ": " + what); }

void JsonReader::fail_at(const std::string& key, const std::string& what) const {
  throw Error(where_ + ": " + path_ + "." + key + ": " + what);
}

std::string JsonReader::describe(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(value.type_name()) + " " + text;
}

const JsonReader& JsonReader::expect_object() const {
  if (!value_.is_object()) fail("expected an object, got " + describe(value_));
  return *this;
}

const JsonReader& JsonReader::expect_array() const {
  if (!value_.is_array()) fail("expected an array, got " + describe(value_));
  return *this;
}

const JsonReader& JsonReader::expect_keys(const std::set<std::string>& required,
                                          const std::set<std::string>& optional) const {
  expect_object();
  for (const auto& [key, unused] : value_.items()) {
    if (required.count(key) || optional.count(key)) continue;
    std::set<std::string> all = required;
    all.insert(optional.begin(), optional.end());
    std::string allowed;
    for (const auto& name : all) allowed += (allowed.empty() ? "" : ", ") + name;
    fail_at(key, "unknown key (allowed here: " + allowed + ")");
  }
  for (const auto& key : required)
    if (!value_.contains(key)) fail_at(key, "missing required field");
  return *this;
}

bool JsonReader::has(const std::string& key) const {
  return value_.is_object() && value_.contains(key) && !value_.at(key).is_null();
}

JsonReader JsonReader::at(const std::string& key) const {
  expect_object();
  if (!value_.contains(key)) fail_at(key, "missing required field");
  return JsonReader(value_.at(key), where_, path_ + "." + key);
}

JsonReader JsonReader::at(std::size_t index) const {
  expect_array();
  if (index >= value_.size()) fail("has no element " + std::to_string(index));
  return JsonReader(value_.at(index), where_, path_ + "[" + std::to_string(index) + "]");
}

std::string JsonReader::as_string() const {
  if (!value_.is_string()) fail("expected a string, got " + describe(value_));
  return value_.get<std::string>();
}

std::string JsonReader::as_nonempty_string() const {
  std::string text = as_string();
  if (text.empty()) fail("must not be empty");
  return text;
}

double JsonReader::as_number() const {
  if (!value_.is_number()) fail("expected a number, got " + describe(value_));
  return value_.get<double>();
}

double JsonReader::as_non_negative() const {
  const double value = as_number();
  if (!(value >= 0) || !std::isfinite(value)) fail("expected a finite number >= 0, got " + describe(value_));
  return value;
}

double JsonReader::as_number_or_special() const {
  if (value_.is_string()) {
    const auto text = value_.get<std::string>();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  if (!value_.is_number()) fail("expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), got " + describe(value_));
  return value_.get<double>();
}

std::int64_t JsonReader::as_integer() const {
  if (!value_.is_number_integer()) fail("expected an integer, got " + describe(value_));
  if (value_.is_number_unsigned() &&
      value_.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    fail("integer out of range");
  return value_.get<std::int64_t>();
}

std::int64_t JsonReader::as_integer_in(std::int64_t min, std::int64_t max) const {
  const std::int64_t value = as_integer();
  if (value < min || value > max)
    fail("expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
         std::to_string(value));
  return value;
}

std::uint64_t JsonReader::as_unsigned() const {
  if (!value_.is_number_integer() || (!value_.is_number_unsigned() && value_.get<std::int64_t>() < 0))
    fail("expected an integer >= 0, got " + describe(value_));
  return value_.get<std::uint64_t>();
}

bool JsonReader::as_bool() const {
  if (!value_.is_boolean()) fail("expected true or false, got " + describe(value_));
  return value_.get<bool>();
}

std::map<std::string, std::int64_t> JsonReader::as_integer_map() const {
  expect_object();
  std::map<std::string, std::int64_t> values;
  for (const auto& [key, unused] : value_.items()) values[key] = at(key).as_integer();
  return values;
}

std::string JsonReader::string_or(const std::string& key, std::string fallback) const {
  return has(key) ? at(key).as_string() : fallback;
}

std::optional<double> JsonReader::optional_number(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return at(key).as_number();
}

int read_file_kind(const JsonReader& document, const FileKind& expected) {
  document.expect_object();
  if (document.has("kind")) {
    const std::string kind = document.at("kind").as_string();
    if (kind != expected.kind) document.at("kind").fail("a '" + kind + "' file, not a '" + expected.kind + "' file");
  }
  if (!document.has("schema_version"))
    document.fail_at("schema_version", "missing required field (a " + expected.kind + " file has \"kind\": \"" +
                                           expected.kind + "\" and \"schema_version\")");
  const JsonReader version_field = document.at("schema_version");
  const int version = int(version_field.as_integer_in(0, 1 << 30));
  if (version < expected.oldest_version || version > expected.version)
    version_field.fail("unsupported schema version " + std::to_string(version) + " (this kernelgate reads " +
                       std::to_string(expected.oldest_version) + " to " + std::to_string(expected.version) + ")");
  if (!document.has("kind") && version > expected.last_version_without_kind)
    document.fail_at("kind", "missing required field (expected \"" + expected.kind + "\")");
  return version;
}

namespace {

// Where the parser is, as a JSON path: one frame per open object or array.
class PathTracker {
 public:
  bool on_event(nlohmann::ordered_json::parse_event_t event, const nlohmann::ordered_json& parsed) {
    using Event = nlohmann::ordered_json::parse_event_t;
    switch (event) {
      case Event::object_start: frames_.push_back({false, 0, ""}); break;
      case Event::array_start: frames_.push_back({true, 0, ""}); break;
      case Event::key:
        if (!frames_.empty()) frames_.back().key = parsed.get<std::string>();
        break;
      case Event::object_end:
      case Event::array_end:
        if (!frames_.empty()) frames_.pop_back();
        [[fallthrough]];
      case Event::value:
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
        break;
    }
    return true;
  }
  std::string path() const {
    std::string path = "$";
    for (const auto& frame : frames_)
      path += frame.is_array ? "[" + std::to_string(frame.index) + "]" : "." + frame.key;
    return path;
  }

 private:
  struct Frame {
    bool is_array;
    std::size_t index;
    std::string key;
  };
  std::vector<Frame> frames_;
};

// nlohmann's messages start "[json.exception.parse_error.101] ": the id
// means nothing to a user.
std::string without_exception_id(std::string what) {
  const auto bracket = what.find("] ");
  if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
  return what;
}

}  // namespace

nlohmann::ordered_json read_json_file(const std::filesystem::path& file) {
  const std::string where = file.string();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw Error(where + ": is a folder, not a JSON file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(where + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(where + ": cannot be read");
  PathTracker tracker;
  try {
    return nlohmann::ordered_json::parse(
        text.str(), [&](int, nlohmann::ordered_json::parse_event_t event, nlohmann::ordered_json& parsed) {
          return tracker.on_event(event, parsed);
        });
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(where + ": not valid JSON: " + without_exception_id(e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + tracker.path() + ": not valid JSON: " + without_exception_id(e.what()));
  }
}

}  // namespace kg
