// The one JSON reader: its path syntax, its messages, and the header check
// every kernelgate file kind goes through.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "kernelgate/detail/json_reader.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using Json = nlohmann::ordered_json;

using test::error_of;

const Json kDocument = Json::parse(R"({"records": [{"latency": {"mean_ms": "fast", "n": 3}}], "note": null})");

TEST(JsonReader, PathsNameMembersWithDotsAndElementsWithBrackets) {
  const JsonReader root(kDocument, "store.json");
  const JsonReader mean = root.at("records").at(0).at("latency").at("mean_ms");
  EXPECT_EQ(mean.path(), "$.records[0].latency.mean_ms");
  EXPECT_EQ(error_of([&] { mean.as_number(); }),
            "store.json: $.records[0].latency.mean_ms: expected a number, got string \"fast\"");
  EXPECT_EQ(error_of([&] { root.fail("whole file"); }), "store.json: $: whole file");
}

TEST(JsonReader, EachAccessorChecksItsType) {
  const JsonReader latency = JsonReader(kDocument, "f").at("records").at(0).at("latency");
  EXPECT_EQ(latency.at("n").as_integer(), 3);
  EXPECT_EQ(latency.at("n").as_unsigned(), 3u);
  EXPECT_EQ(error_of([&] { latency.at("n").as_integer_in(4, 9); }),
            "f: $.records[0].latency.n: expected an integer from 4 to 9, got 3");
  EXPECT_EQ(error_of([&] { latency.at("n").as_string(); }), "f: $.records[0].latency.n: expected a string, got number 3");
  EXPECT_EQ(error_of([&] { latency.at("n").as_bool(); }), "f: $.records[0].latency.n: expected true or false, got number 3");
  EXPECT_EQ(error_of([&] { latency.at(std::size_t{0}); }), "f: $.records[0].latency: expected an array, got an object");
  EXPECT_EQ(error_of([&] { JsonReader(Json(-1), "f").as_unsigned(); }), "f: $: expected an integer >= 0, got number -1");
  EXPECT_EQ(error_of([&] { JsonReader(Json(-0.5), "f").as_non_negative(); }),
            "f: $: expected a finite number >= 0, got number -0.5");
  EXPECT_EQ(error_of([&] { JsonReader(Json(""), "f").as_nonempty_string(); }), "f: $: must not be empty");
}

TEST(JsonReader, AnIntegerMapIsReadMemberByMember) {
  const Json axes = Json::parse(R"({"batch_size": 2, "width": 19})");
  EXPECT_EQ(JsonReader(axes, "f").as_integer_map(), (std::map<std::string, std::int64_t>{{"batch_size", 2}, {"width", 19}}));
  const Json bad = Json::parse(R"({"batch_size": 2, "width": "19"})");
  EXPECT_EQ(error_of([&] { JsonReader(bad, "f").as_integer_map(); }),
            "f: $.width: expected an integer, got string \"19\"");
}

TEST(JsonReader, AMissingMemberIsNamedAndNullCountsAsAbsent) {
  const JsonReader root(kDocument, "f");
  EXPECT_EQ(error_of([&] { root.at("hardware"); }), "f: $.hardware: missing required field");
  EXPECT_EQ(error_of([&] { root.at("records").at(5); }), "f: $.records: has no element 5");
  EXPECT_TRUE(root.has("records"));
  EXPECT_FALSE(root.has("note"));  // null: an optional member written as absent
  EXPECT_EQ(root.string_or("note", "none"), "none");
  EXPECT_FALSE(root.optional_number("note").has_value());
  EXPECT_EQ(error_of([&] { root.fail_at("hardware", "needed for a GPU run"); }), "f: $.hardware: needed for a GPU run");
}

TEST(JsonReader, UnknownKeysAreRefusedListingTheAllowedOnes) {
  const JsonReader root(kDocument, "f");
  EXPECT_EQ(error_of([&] { root.expect_keys({"records"}); }), "f: $.note: unknown key (allowed here: records)");
  EXPECT_EQ(error_of([&] { root.expect_keys({"records", "note", "hardware"}); }),
            "f: $.hardware: missing required field");
  EXPECT_EQ(error_of([&] { root.expect_keys({"records"}, {"note"}); }), "");
}

TEST(JsonReader, SpecialNumbersAreReadWhereTheRecordsWriteThem) {
  EXPECT_TRUE(std::isnan(JsonReader(Json("NaN"), "f").as_number_or_special()));
  EXPECT_EQ(JsonReader(Json("-Infinity"), "f").as_number_or_special(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(JsonReader(Json(2.5), "f").as_number_or_special(), 2.5);
  EXPECT_NE(error_of([&] { JsonReader(Json("fast"), "f").as_number_or_special(); }), "");
  EXPECT_NE(error_of([&] { JsonReader(Json("NaN"), "f").as_number(); }), "");
}

TEST(JsonReader, TheHeaderIsCheckedForKindAndVersion) {
  const FileKind store{.kind = "kernelgate-baseline", .oldest_version = 1, .version = 3, .last_version_without_kind = 2};
  auto header = [&](const char* text) { return read_file_kind(JsonReader(Json::parse(text), "f"), store); };
  EXPECT_EQ(header(R"({"kind": "kernelgate-baseline", "schema_version": 3})"), 3);
  EXPECT_EQ(header(R"({"schema_version": 2})"), 2);  // written before "kind"
  EXPECT_EQ(error_of([&] { header(R"({"schema_version": 3})"); }),
            "f: $.kind: missing required field (expected \"kernelgate-baseline\")");
  EXPECT_EQ(error_of([&] { header(R"({"kind": "kernelgate-report", "schema_version": 2})"); }),
            "f: $.kind: a 'kernelgate-report' file, not a 'kernelgate-baseline' file");
  EXPECT_EQ(error_of([&] { header(R"({"kind": "kernelgate-baseline", "schema_version": 4})"); }),
            "f: $.schema_version: unsupported schema version 4 (this kernelgate reads 1 to 3)");
  EXPECT_EQ(error_of([&] { header(R"({"kind": "kernelgate-baseline"})"); }),
            "f: $.schema_version: missing required field (a kernelgate-baseline file has \"kind\": "
            "\"kernelgate-baseline\" and \"schema_version\")");
  EXPECT_EQ(error_of([&] { header("[1]"); }), "f: $: expected an object, got an array");
}

class JsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kernelgate-json-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::filesystem::path dir_;
};

TEST_F(JsonFile, EveryFailureNamesTheFile) {
  EXPECT_EQ(read_json_file(write("good.json", R"({"a": [1, 2]})")).at("a").size(), 2u);
  EXPECT_EQ(error_of([&] { read_json_file(dir_); }), dir_.string() + ": is a folder, not a JSON file");
  EXPECT_EQ(error_of([&] { read_json_file(dir_ / "absent.json"); }), (dir_ / "absent.json").string() + ": cannot be read");
  const auto broken = write("broken.json", "{\"a\": ");
  EXPECT_EQ(error_of([&] { read_json_file(broken); }).rfind(broken.string() + ": not valid JSON: parse error at line 1", 0),
            0u);
  // A number beyond a double: the parser gives no position, so the path
  // reached so far is named.
  const auto overflow = write("overflow.json", R"({"records": [{"mean_ms": 1}, {"mean_ms": 1e999}]})");
  EXPECT_EQ(error_of([&] { read_json_file(overflow); }),
            overflow.string() + ": $.records[1].mean_ms: not valid JSON: number overflow parsing '1e999'");
}

}  // namespace
}  // namespace kg
