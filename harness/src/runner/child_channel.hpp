#pragma once
// The messages between the runner's parent and a candidate's child process:
// a JSON header and an optional block of float values (output elements),
// framed by their lengths. The parent sends commands and the child answers
// each with exactly one message (child_commands.hpp lists them).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/json_reader.hpp"
#include "kernelgate/suite.hpp"

namespace kg::detail {

struct Message {
  nlohmann::ordered_json header;
  std::vector<float> values;
};

// A command: its name in the header's "command", beside its fields.
inline Message make_command(const std::string& name,
                            nlohmann::ordered_json fields = nlohmann::ordered_json::object()) {
  Message message;
  message.header = std::move(fields);
  message.header["command"] = name;
  return message;
}

// The "open" command: which candidate, at which axes, on which device. The
// parent writes it with open_command and the child reads it back with
// read_open_request, both from one list of its members, so the two cannot
// drift apart.
struct OpenRequest {
  std::string workload;
  std::string suite_file;  // absolute: the child runs in a scratch folder of its own
  std::string candidate;
  std::string device;
  Axes axes;
  std::uint64_t seed = 0;
  std::string thread_order;  // interpret mode: pinned before any candidate code runs
  std::string tensor_cores;
  std::string nonce;  // echoed by every reply
  bool model = false;  // `kernelgate model`: set A only, nothing checked
};
Message open_command(const OpenRequest& request);
OpenRequest read_open_request(const JsonReader& command);

// The "run" command: one launch of the opened candidate. Written and read
// the same way as "open", every field required, so a field the parent
// misnames is refused instead of being read as its default (an untimed run
// reported as timed).
struct RunRequest {
  std::string set = "A";  // the input set loaded before the launch: A or B
  bool timed = false;     // between events (or the wall clock), caches flushed first
  bool audit = true;      // the stream audit around the launch
  bool count = false;     // interpret mode's counters on (not with timed)
  // `kernelgate model`: this many blocks of each launch, the grid sized for
  // the GPU key `hardware`; 0 for a whole, checked run.
  std::uint64_t sample_blocks = 0;
  std::string hardware = {};
};
Message run_command(const RunRequest& request);
RunRequest read_run_request(const JsonReader& command);

// The child's end: commands arrive on kCommandFd, replies leave on kReplyFd.
inline constexpr int kCommandFd = 3;
inline constexpr int kReplyFd = 4;

// Limits of one frame, so a corrupt or hostile length cannot make the reader
// allocate without bound: headers are small JSON, values at most 2^32 floats.
inline constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 32;

// The bytes of one frame: [header bytes: u64][value count: u64][header][values].
std::vector<char> encode_message(const Message& message);

// Parses one frame from the front of `bytes`; returns nullopt while the frame
// is incomplete, and removes the frame from `bytes` when it returns one.
// Throws kg::Error on a malformed frame.
std::optional<Message> take_message(std::vector<char>& bytes);

// Blocking writes and reads on a file descriptor (the child's side). read
// returns nullopt at end of file before any byte of a frame. Both throw
// kg::Error on an I/O error or a malformed frame.
void write_message(int fd, const Message& message);
std::optional<Message> read_message(int fd);

}  // namespace kg::detail
