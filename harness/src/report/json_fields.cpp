// read_json_file (json_fields.hpp).
#include "json_fields.hpp"

#include <fstream>
#include <sstream>
#include <vector>

namespace kg::report_detail {

namespace {

// Where the parser is, as a JSON pointer: one frame per open object or array.
class PathTracker {
 public:
  bool on_event(int depth, nlohmann::ordered_json::parse_event_t event, const nlohmann::ordered_json& parsed) {
    using Event = nlohmann::ordered_json::parse_event_t;
    (void)depth;
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
  std::string pointer() const {
    std::string path;
    for (const auto& frame : frames_) path += "/" + (frame.is_array ? std::to_string(frame.index) : frame.key);
    return path.empty() ? "/" : path;
  }

 private:
  struct Frame {
    bool is_array;
    std::size_t index;
    std::string key;
  };
  std::vector<Frame> frames_;
};

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
    return nlohmann::ordered_json::parse(text.str(), [&](int depth, nlohmann::ordered_json::parse_event_t event,
                                                         nlohmann::ordered_json& parsed) {
      return tracker.on_event(depth, event, parsed);
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(where + ": not valid JSON (" + std::string(e.what()) + ")");
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + tracker.pointer() + ": " + std::string(e.what()));
  }
}

}  // namespace kg::report_detail
