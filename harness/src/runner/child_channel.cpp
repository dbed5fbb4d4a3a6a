// Framing of the parent-child messages (child_channel.hpp).
#include "child_channel.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

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

Message open_command(const OpenRequest& request) {
  return make_command("open", {{"workload", request.workload},
                               {"suite_file", request.suite_file},
                               {"candidate", request.candidate},
                               {"device", request.device},
                               {"axes", request.axes},
                               {"seed", request.seed},
                               {"thread_order", request.thread_order},
                               {"tensor_cores", request.tensor_cores},
                               {"nonce", request.nonce},
                               {"model", request.model}});
}

OpenRequest read_open_request(const JsonReader& command) {
  command.expect_keys({"command", "workload", "suite_file", "candidate", "device", "axes", "seed", "thread_order",
                       "tensor_cores", "nonce", "model"});
  OpenRequest request;
  request.workload = command.at("workload").as_string();
  request.suite_file = command.at("suite_file").as_string();
  request.candidate = command.at("candidate").as_string();
  request.device = command.at("device").as_string();
  request.axes = command.at("axes").as_integer_map();
  request.seed = command.at("seed").as_unsigned();
  request.thread_order = command.at("thread_order").as_string();
  request.tensor_cores = command.at("tensor_cores").as_string();
  request.nonce = command.at("nonce").as_string();
  request.model = command.at("model").as_bool();
  return request;
}

Message run_command(const RunRequest& request) {
  return make_command("run", {{"set", request.set},
                              {"timed", request.timed},
                              {"audit", request.audit},
                              {"count", request.count},
                              {"sample_blocks", request.sample_blocks},
                              {"hardware", request.hardware}});
}

RunRequest read_run_request(const JsonReader& command) {
  command.expect_keys({"command", "set", "timed", "audit", "count", "sample_blocks", "hardware"});
  RunRequest request;
  request.set = command.at("set").as_string();
  request.timed = command.at("timed").as_bool();
  request.audit = command.at("audit").as_bool();
  request.count = command.at("count").as_bool();
  request.sample_blocks = command.at("sample_blocks").as_unsigned();
  request.hardware = command.at("hardware").as_string();
  return request;
}

}  // namespace kg::detail
