// Framing of the parent-child messages (child_channel.hpp).
#include "child_channel.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/json_members.hpp"
#include "runner_internal.hpp"

namespace kg::detail {
namespace {

constexpr std::size_t kPrefixBytes = 2 * sizeof(std::uint64_t);

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("cannot write to the runner's channel: ") + std::strerror(errno));
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

// Reads exactly `size` bytes; false at end of file before the first byte.
bool read_all(int fd, char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, data + done, size - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("cannot read from the runner's channel: ") + std::strerror(errno));
    }
    if (got == 0) {
      if (done == 0) return false;
      throw Error("the runner's channel closed in the middle of a message");
    }
    done += static_cast<std::size_t>(got);
  }
  return true;
}

void check_lengths(std::uint64_t header_bytes, std::uint64_t value_count) {
  if (header_bytes == 0 || header_bytes > kMaxHeaderBytes || value_count > kMaxValues)
    throw Error("malformed message on the runner's channel (header " + std::to_string(header_bytes) +
                " bytes, " + std::to_string(value_count) + " values)");
}

}  // namespace

std::vector<char> encode_message(const Message& message) {
  // A reply with nothing to say is an empty object, never null.
  const std::string header = message.header.is_null() ? std::string("{}") : message.header.dump();
  const std::uint64_t lengths[2] = {header.size(), message.values.size()};
  std::vector<char> bytes(kPrefixBytes + header.size() + message.values.size() * sizeof(float));
  std::memcpy(bytes.data(), lengths, kPrefixBytes);
  std::memcpy(bytes.data() + kPrefixBytes, header.data(), header.size());
  if (!message.values.empty())
    std::memcpy(bytes.data() + kPrefixBytes + header.size(), message.values.data(),
                message.values.size() * sizeof(float));
  return bytes;
}

std::optional<Message> take_message(std::vector<char>& bytes) {
  if (bytes.size() < kPrefixBytes) return std::nullopt;
  std::uint64_t lengths[2];
  std::memcpy(lengths, bytes.data(), kPrefixBytes);
  check_lengths(lengths[0], lengths[1]);
  const std::uint64_t total = kPrefixBytes + lengths[0] + lengths[1] * sizeof(float);
  if (bytes.size() < total) return std::nullopt;
  Message message;
  const char* header = bytes.data() + kPrefixBytes;
  message.header = nlohmann::ordered_json::parse(header, header + lengths[0], nullptr, false);
  if (message.header.is_discarded() || !message.header.is_object())
    throw Error("malformed message on the runner's channel (the header is not a JSON object)");
  message.values.resize(static_cast<std::size_t>(lengths[1]));
  if (lengths[1] > 0)
    std::memcpy(message.values.data(), header + lengths[0], message.values.size() * sizeof(float));
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(total));
  return message;
}

void write_message(int fd, const Message& message) {
  const std::vector<char> bytes = encode_message(message);
  write_all(fd, bytes.data(), bytes.size());
}

std::optional<Message> read_message(int fd) {
  std::vector<char> bytes(kPrefixBytes);
  if (!read_all(fd, bytes.data(), kPrefixBytes)) return std::nullopt;
  std::uint64_t lengths[2];
  std::memcpy(lengths, bytes.data(), kPrefixBytes);
  check_lengths(lengths[0], lengths[1]);
  bytes.resize(kPrefixBytes + lengths[0] + lengths[1] * sizeof(float));
  if (!read_all(fd, bytes.data() + kPrefixBytes, bytes.size() - kPrefixBytes))
    throw Error("the runner's channel closed in the middle of a message");
  return take_message(bytes);
}

namespace {

// The members of each message, in the order they are written: one list
// serves the writer and the strict reader.
KG_JSON_MEMBERS(OpenRequest, workload, suite_file, candidate, device, axes, seed_a, seed_b, thread_order,
                tensor_cores, nonce, model)
KG_JSON_MEMBERS(RunRequest, set, fresh_seed, timed, audit, count, sample_blocks, hardware, empty_kernel)
KG_JSON_MEMBERS(ValuesRequest, all, indices)
KG_JSON_MEMBERS(StrictRequest, indices, atol, rtol, rel_l2)
KG_JSON_MEMBERS(CountRequest, count)
KG_JSON_MEMBERS(OpenReply, unsupported, numel, workspace_bytes, overlap)
KG_JSON_MEMBERS(FloatScan, poisoned, first_poisoned, non_finite, first_non_finite)
KG_JSON_MEMBERS(RunReply, stream, guards, inputs, output_hash, scan, time_ms, sm_clock_mhz, sm_clock_max_mhz,
                sm_clock_set_mhz, clock_event_reasons, busy_after_ms, hold_expired, counted, counters,
                counters_unavailable)
KG_JSON_MEMBERS(StrictReply, stats, summary)
KG_JSON_MEMBERS(OverheadReply, times_ms)

// A type with a member list above (a message, or a record inside one).
template <typename T>
concept HasMembers = requires(T& value) { for_each_member(value, [](const char*, auto&) {}); };

using NamedCounts = std::vector<std::pair<std::string, std::uint64_t>>;

// Writing: a type with members is an object of them; counters are an
// object by name; anything else is nlohmann's own (ErrorStats has a to_json).
nlohmann::ordered_json json_of(const NamedCounts& counts) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const auto& [name, value] : counts) object[name] = value;
  return object;
}
template <typename T>
nlohmann::ordered_json json_of(const T& value) {
  if constexpr (HasMembers<const T>) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for_each_member(value, [&](const char* key, const auto& member) { object[key] = json_of(member); });
    return object;
  } else {
    return nlohmann::ordered_json(value);
  }
}

// Reading: every member is required and no other key is allowed (`keys`
// starts with those that travel beside the members, such as "command"), so
// a field a writer misnames is refused, never read as its default.
void read_value(const JsonReader& r, NamedCounts& counts) { counts = counters_from_json(r); }
void read_value(const JsonReader& r, ErrorStats& stats) { stats = read_error_stats(r); }
template <typename T>
void read_members(const JsonReader& r, T& value, std::set<std::string> keys = {});
template <typename T>
void read_member(const JsonReader& r, T& value) {
  if constexpr (HasMembers<T>)
    read_members(r, value);
  else
    read_value(r, value);
}
template <typename T>
void read_members(const JsonReader& r, T& value, std::set<std::string> keys) {
  for_each_member(value, [&](const char* key, auto&) { keys.insert(key); });
  r.expect_keys(keys);
  for_each_member(value, [&](const char* key, auto& member) { read_member(r.at(key), member); });
}

template <typename Request>
Message write_command(const std::string& name, const Request& request) {
  return make_command(name, json_of(request));
}

template <typename Request>
Request read_command(const JsonReader& command) {
  Request request;
  read_members(command, request, {"command"});
  return request;
}

template <typename Reply>
Message write_reply(const Reply& reply, std::vector<float> values = {}) {
  return Message{json_of(reply), std::move(values)};
}

template <typename Reply>
Reply read_reply(const Message& message) {
  Reply reply;
  read_members(JsonReader(message.header, "its reply to the runner"), reply);
  return reply;
}

}  // namespace

Message open_command(const OpenRequest& request) { return write_command("open", request); }
OpenRequest read_open_request(const JsonReader& command) { return read_command<OpenRequest>(command); }
Message run_command(const RunRequest& request) { return write_command("run", request); }
RunRequest read_run_request(const JsonReader& command) { return read_command<RunRequest>(command); }
Message values_command(const ValuesRequest& request) { return write_command("values", request); }
ValuesRequest read_values_request(const JsonReader& command) { return read_command<ValuesRequest>(command); }
Message strict_command(const StrictRequest& request) { return write_command("strict", request); }
StrictRequest read_strict_request(const JsonReader& command) { return read_command<StrictRequest>(command); }
Message count_command(const std::string& name, const CountRequest& request) { return write_command(name, request); }
CountRequest read_count_request(const JsonReader& command) { return read_command<CountRequest>(command); }

Message open_reply(const OpenReply& reply) { return write_reply(reply); }
Message run_reply(const RunReply& reply) { return write_reply(reply); }
Message strict_reply(const StrictReply& reply, std::vector<float> values) {
  return write_reply(reply, std::move(values));
}
Message overhead_reply(const OverheadReply& reply) { return write_reply(reply); }
OpenReply read_open_reply(const Message& reply) { return read_reply<OpenReply>(reply); }
RunReply read_run_reply(const Message& reply) { return read_reply<RunReply>(reply); }
StrictReply read_strict_reply(const Message& reply) { return read_reply<StrictReply>(reply); }
OverheadReply read_overhead_reply(const Message& reply) { return read_reply<OverheadReply>(reply); }

}  // namespace kg::detail
