#pragma once
// The one strict reader for kernelgate's JSON files: suites, baselines,
// reports, and the records the candidate's child sends back. A JsonReader is
// a value seen at a JSON path of a named file; every accessor checks the type
// it asks for, and every failure is one kg::Error naming both, e.g.
//   "suites/x.json: $.axes.batch.default: expected an integer, got string \"8\"".
// Paths are written one way everywhere: `$` is the document, `.key` a member,
// `[i]` an element.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"

namespace kg {

class JsonReader {
 public:
  using Json = nlohmann::ordered_json;

  // `where` names the file (or the message) the value came from. The reader
  // keeps a reference to `value`: the document must outlive it.
  JsonReader(const Json& value, std::string where, std::string path = "$")
      : value_(value), where_(std::move(where)), path_(std::move(path)) {}

  const Json& json() const { return value_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& what) const;
  // Fails at the member `key`, whether or not it is present: for rules about
  // a member that is missing, or present where it must not be.
  [[noreturn]] void fail_at(const std::string& key, const std::string& what) const;

  // A value's JSON type and a short dump, for messages: `string "8"`.
  static std::string describe(const Json& value);

  const JsonReader& expect_object() const;
  const JsonReader& expect_array() const;
  // An object whose every key is `required` or `optional`, with every
  // required key present. Unknown keys are refused rather than dropped: the
  // next write would lose them silently.
  const JsonReader& expect_keys(const std::set<std::string>& required,
                                const std::set<std::string>& optional = {}) const;

  // Present and not null: an optional member may be written as null.
  bool has(const std::string& key) const;
  // A member that must be present ("missing required field" otherwise).
  JsonReader at(const std::string& key) const;
  // An element of an array.
  JsonReader at(std::size_t index) const;
  std::size_t size() const { return value_.size(); }

  std::string as_string() const;
  std::string as_nonempty_string() const;
  double as_number() const;
  // A finite number that is zero or more.
  double as_non_negative() const;
  // A number that may be written as the string "NaN", "Infinity" or
  // "-Infinity", the spelling the result records use for values JSON lacks.
  double as_number_or_special() const;
  std::int64_t as_integer() const;
  std::int64_t as_integer_in(std::int64_t min, std::int64_t max) const;
  std::uint64_t as_unsigned() const;
  bool as_bool() const;
  // An object whose every member is an integer (the axes of a run), by key.
  std::map<std::string, std::int64_t> as_integer_map() const;

  // Optional members: the fallback when absent or null.
  std::string string_or(const std::string& key, std::string fallback) const;
  std::optional<double> optional_number(const std::string& key) const;

 private:
  const Json& value_;
  std::string where_;
  std::string path_;
};

// Reads and parses a JSON file. Every failure is a kg::Error naming the file:
// a folder, unreadable, not JSON (with the parser's position), or a number
// out of range (1e999, which the parser reports without a position: then the
// JSON path reached so far is named).
nlohmann::ordered_json read_json_file(const std::filesystem::path& file);

// The convention every file kernelgate writes follows at its top level:
// "kind" names what the file is, "schema_version" the version of its format.
struct FileKind {
  std::string kind;
  int oldest_version = 1;  // the oldest version this kernelgate still reads
  int version = 1;         // the version it writes
  // Versions up to this one were written before "kind" existed and may lack it.
  int last_version_without_kind = 0;
};

// Checks a document's "kind" and "schema_version" against `expected` and
// returns the version found.
int read_file_kind(const JsonReader& document, const FileKind& expected);

// One value into a variable, with the strict read its type calls for: a
// record that lists its members once (KG_JSON_MEMBERS, json_members.hpp) reads
// every member with these, so its writer and its reader share that list.
inline void read_value(const JsonReader& r, std::int64_t& value) { value = r.as_integer(); }
inline void read_value(const JsonReader& r, std::uint64_t& value) { value = r.as_unsigned(); }
inline void read_value(const JsonReader& r, int& value) {
  value = int(r.as_integer_in(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}
inline void read_value(const JsonReader& r, bool& value) { value = r.as_bool(); }
inline void read_value(const JsonReader& r, std::string& value) { value = r.as_string(); }
inline void read_value(const JsonReader& r, std::map<std::string, std::int64_t>& value) {
  value = r.as_integer_map();
}
// A single number may be NaN or infinite, written as a string; lists of
// numbers (samples) are plain numbers, nothing else.
inline void read_value(const JsonReader& r, double& value) { value = r.as_number_or_special(); }
inline void read_value(const JsonReader& r, std::vector<double>& values) {
  r.expect_array();
  values.clear();
  for (std::size_t i = 0; i < r.size(); ++i) values.push_back(r.at(i).as_number());
}
template <typename T>
void read_value(const JsonReader& r, std::vector<T>& values) {
  r.expect_array();
  values.clear();
  for (std::size_t i = 0; i < r.size(); ++i) read_value(r.at(i), values.emplace_back());
}

}  // namespace kg
