// Framing of the parent-child messages (child_channel.hpp).
#include "child_channel.hpp"

#include <unistd.h>

#include <cerrno>
#include <concepts>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>

#include "kernelgate/error.hpp"
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

// The members of each message with their JSON names: one list serves the
// writer and the strict reader, so the two cannot drift apart. `M` is the
// message, const or not.
template <typename M, typename T>
concept MessageOf = std::same_as<std::remove_const_t<M>, T>;

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, OpenRequest> {
  visit("workload", r.workload);
  visit("suite_file", r.suite_file);
  visit("candidate", r.candidate);
  visit("device", r.device);
  visit("axes", r.axes);
  visit("seed", r.seed);
  visit("thread_order", r.thread_order);
  visit("tensor_cores", r.tensor_cores);
  visit("nonce", r.nonce);
  visit("model", r.model);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, RunRequest> {
  visit("set", r.set);
  visit("timed", r.timed);
  visit("audit", r.audit);
  visit("count", r.count);
  visit("sample_blocks", r.sample_blocks);
  visit("hardware", r.hardware);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, ValuesRequest> {
  visit("all", r.all);
  visit("indices", r.indices);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, StrictRequest> {
  visit("indices", r.indices);
  visit("atol", r.atol);
  visit("rtol", r.rtol);
  visit("rel_l2", r.rel_l2);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, CountRequest> {
  visit("count", r.count);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, OpenReply> {
  visit("unsupported", r.unsupported);
  visit("numel", r.numel);
  visit("workspace_bytes", r.workspace_bytes);
  visit("overlap", r.overlap);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, FloatScan> {
  visit("poisoned", r.poisoned);
  visit("first_poisoned", r.first_poisoned);
  visit("non_finite", r.non_finite);
  visit("first_non_finite", r.first_non_finite);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, RunReply> {
  visit("stream", r.stream);
  visit("guards", r.guards);
  visit("inputs", r.inputs);
  visit("output_hash", r.output_hash);
  visit("scan", r.scan);
  visit("time_ms", r.time_ms);
  visit("sm_clock_mhz", r.sm_clock_mhz);
  visit("sm_clock_max_mhz", r.sm_clock_max_mhz);
  visit("counted", r.counted);
  visit("counters", r.counters);
  visit("counters_unavailable", r.counters_unavailable);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, StrictReply> {
  visit("stats", r.stats);
  visit("summary", r.summary);
}

template <typename M, typename Visit>
void for_each_member(M& r, Visit&& visit) requires MessageOf<M, OverheadReply> {
  visit("times_ms", r.times_ms);
}

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
