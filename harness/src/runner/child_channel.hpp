#pragma once
// The messages between the runner's parent and a candidate's child process:
// a JSON header and an optional block of float values (output elements),
// framed by their lengths. The parent sends commands and the child answers
// each with exactly one message. The commands (CandidateHost::handle):
// open, run, values, strict, warmup, overhead and close; each one's fields
// are below, written and read from one list so the two ends cannot drift.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/suite.hpp"

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
  // The generator seeds of input sets A and B (input_set_seed), never the
  // run's own seed: from these the child cannot work out a timed sample's.
  std::uint64_t seed_a = 0, seed_b = 0;
  std::string thread_order;  // interpret mode: pinned before any candidate code runs
  std::string tensor_cores;
  std::string nonce;  // echoed by the reply to close: the child the parent started answered
  bool model = false;  // `kernelgate model`: set A only, nothing checked
};
Message open_command(const OpenRequest& request);
OpenRequest read_open_request(const JsonReader& command);

// The "run" command: one launch of the opened candidate. Written and read
// the same way as "open", every field required, so a field the parent
// misnames is refused instead of being read as its default (an untimed run
// reported as timed).
struct RunRequest {
  // The input set loaded before the launch: A or B, staged at open, or
  // "fresh", generated from fresh_seed (told only now) into the inputs.
  std::string set = "A";
  std::uint64_t fresh_seed = 0;
  bool timed = false;     // between events (or the wall clock), caches flushed first
  bool audit = true;      // the stream audit around the launch
  bool count = false;     // interpret mode's counters on (not with timed)
  // `kernelgate model`: this many blocks of each launch, the grid sized for
  // the GPU key `hardware`; 0 for a whole, checked run.
  std::uint64_t sample_blocks = 0;
  std::string hardware = {};
  // A timed run with an empty kernel in the candidate's place: everything
  // else of the command as a timed sample does it, for the parent to time
  // the harness's own share of a round trip (never the candidate's call).
  bool empty_kernel = false;
};
Message run_command(const RunRequest& request);
RunRequest read_run_request(const JsonReader& command);

// The other commands' fields, written and read the same way.
struct ValuesRequest {  // "values": output elements back to the parent
  bool all = false;                  // every element (small outputs)
  std::vector<std::int64_t> indices;  // else these flat indices
};
struct StrictRequest {  // "strict": the whole output against the strict-FP32 GPU reference
  std::vector<std::int64_t> indices;  // the reference's values here come back
  double atol = 0, rtol = 0, rel_l2 = 0;
};
struct CountRequest {  // "warmup" (untimed launches) and "overhead" (timed empty kernels)
  int count = 0;
};
Message values_command(const ValuesRequest& request);
Message strict_command(const StrictRequest& request);
Message count_command(const std::string& name, const CountRequest& request);
ValuesRequest read_values_request(const JsonReader& command);
StrictRequest read_strict_request(const JsonReader& command);
CountRequest read_count_request(const JsonReader& command);

// The child's replies to "open", "run", "strict" and "overhead", each
// written by the child (open_reply ...) and read back by the parent
// (read_open_reply ...) from one list of its members, every member
// required and no other allowed: a reply that is missing one or carries
// another was forged or garbled, and the parent's read throws kg::Error.
struct OpenReply {
  std::string unsupported;            // why the candidate refuses the axes ("" if not); then nothing else is set
  std::int64_t numel = 0;             // output elements the child allocated
  std::uint64_t workspace_bytes = 0;  // what the candidate asked for
  std::string overlap;                // an output or workspace buffer that overlaps an input ("" if none)
};
struct RunReply {
  // The contract after the launch: "" where it held.
  std::string stream;  // a kernel outside the harness's stream (when audited)
  std::string guards;  // a buffer whose guard band was written
  std::string inputs;  // the input the candidate modified
  std::uint64_t output_hash = 0;  // of the whole output: equal hashes, bitwise equal runs
  FloatScan scan;  // of the whole output
  // A timed run: its milliseconds, the SM clocks around it (0: unknown) and
  // why the clock was there (-1: unknown), how long the device stayed busy
  // after it, and whether its enqueueing outlasted the hold (TimedLaunch).
  double time_ms = 0;
  std::int64_t sm_clock_mhz = 0, sm_clock_max_mhz = 0, sm_clock_set_mhz = 0;
  std::int64_t clock_event_reasons = -1;
  double busy_after_ms = 0;
  bool hold_expired = false;
  // A counted run: interpret mode's counters by name (none on a GPU), or why
  // they are missing (more requests than interpret mode keeps).
  bool counted = false;
  std::vector<std::pair<std::string, std::uint64_t>> counters;
  std::string counters_unavailable;
};
struct StrictReply {
  ErrorStats stats;     // every element against the strict-FP32 reference
  std::string summary;  // how that reference was computed
};
struct OverheadReply {
  std::vector<double> times_ms;
};
Message open_reply(const OpenReply& reply);
Message run_reply(const RunReply& reply);
Message strict_reply(const StrictReply& reply, std::vector<float> values);
Message overhead_reply(const OverheadReply& reply);
OpenReply read_open_reply(const Message& reply);
RunReply read_run_reply(const Message& reply);
StrictReply read_strict_reply(const Message& reply);
OverheadReply read_overhead_reply(const Message& reply);

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
