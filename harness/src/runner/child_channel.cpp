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

// The members of each command with their JSON names: one list serves the
// parent's writer and the child's strict reader, so the two cannot drift
// apart. `Request` is the request, const or not.
template <typename Request, typename Visit>
void for_each_member(Request& r, Visit&& visit) requires std::same_as<std::remove_const_t<Request>, OpenRequest> {
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

template <typename Request, typename Visit>
void for_each_member(Request& r, Visit&& visit) requires std::same_as<std::remove_const_t<Request>, RunRequest> {
  visit("set", r.set);
  visit("timed", r.timed);
  visit("audit", r.audit);
  visit("count", r.count);
  visit("sample_blocks", r.sample_blocks);
  visit("hardware", r.hardware);
}

template <typename Request>
Message write_command(const char* name, const Request& request) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for_each_member(request, [&](const char* key, const auto& value) { fields[key] = value; });
  return make_command(name, std::move(fields));
}

// Every member is required and no other key is allowed: a field the parent
// misnames is refused, never read as its default.
template <typename Request>
Request read_command(const JsonReader& command) {
  Request request;
  std::set<std::string> keys{"command"};
  for_each_member(request, [&](const char* key, auto&) { keys.insert(key); });
  command.expect_keys(keys);
  for_each_member(request, [&](const char* key, auto& value) { read_value(command.at(key), value); });
  return request;
}

}  // namespace

Message open_command(const OpenRequest& request) { return write_command("open", request); }
OpenRequest read_open_request(const JsonReader& command) { return read_command<OpenRequest>(command); }
Message run_command(const RunRequest& request) { return write_command("run", request); }
RunRequest read_run_request(const JsonReader& command) { return read_command<RunRequest>(command); }

}  // namespace kg::detail
