// Hand-made CUPTI activity records of the newest versions these CUPTI headers
// declare, laid one after another in a buffer as CUPTI hands them over, read
// by the stream audit's reader (harness/src/device/cuda/cupti_records.hpp).
// It calls no CUPTI function, so ci/check-cuda-headers.sh builds and runs it
// against the headers of each supported CUDA version, with or without a GPU.
// Every byte the audit does not read is filled with a pattern, so that
// reading a neighbouring field instead shows up as a wrong value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cupti_records.hpp"

namespace {

using kg::DeviceActivity;
using kg::cuda_detail::KernelRecord;
using kg::cuda_detail::MemcpyRecord;
using kg::cuda_detail::MemsetRecord;
using kg::cuda_detail::read_device_activity;

constexpr unsigned char kFiller = 0xA5;
constexpr char kMangledKernel[] = "_Z9conv_fp32PKfPfi";  // conv_fp32(float const*, float*, int)

int passed = 0;
int failed = 0;

std::string describe(const std::optional<DeviceActivity>& activity) {
  if (!activity) return "nothing";
  return "{\"" + activity->what + "\", stream " + std::to_string(activity->stream_id) + ", " +
         std::to_string(activity->start_ns) + " to " + std::to_string(activity->end_ns) + "}";
}

void expect_read(const char* record_name, const CUpti_Activity* record, const std::optional<DeviceActivity>& want) {
  const std::optional<DeviceActivity> got = read_device_activity(record);
  const bool same = got.has_value() == want.has_value() &&
                    (!got || (got->what == want->what && got->stream_id == want->stream_id &&
                              got->start_ns == want->start_ns && got->end_ns == want->end_ns));
  if (same) {
    ++passed;
    return;
  }
  ++failed;
  std::printf("FAILED: %s read as %s, expected %s\n", record_name, describe(got).c_str(), describe(want).c_str());
}

// A buffer as CUPTI fills it: 8-byte aligned, records back to back.
class RecordBuffer {
 public:
  RecordBuffer() { std::memset(bytes_, kFiller, sizeof bytes_); }

  template <class Record>
  Record& add(CUpti_ActivityKind kind) {
    if (used_ + sizeof(Record) > sizeof bytes_) std::abort();
    offsets_.push_back(used_);
    auto& record = *reinterpret_cast<Record*>(bytes_ + used_);
    used_ += sizeof(Record);
    record.kind = kind;
    return record;
  }
  const CUpti_Activity* record(std::size_t index) const {
    return reinterpret_cast<const CUpti_Activity*>(bytes_ + offsets_.at(index));
  }

 private:
  alignas(8) unsigned char bytes_[2048];
  std::size_t used_ = 0;
  std::vector<std::size_t> offsets_;
};

// A record of `kind` on `stream` from `start` to `end`, its other fields zero.
template <class Record>
Record& add_on_stream(RecordBuffer& buffer, CUpti_ActivityKind kind, std::uint32_t stream, std::uint64_t start,
                      std::uint64_t end) {
  Record& record = buffer.add<Record>(kind);
  record.streamId = stream;
  record.start = start;
  record.end = end;
  return record;
}

void add_kernel(RecordBuffer& buffer, CUpti_ActivityKind kind, const char* name, std::uint32_t stream,
                std::uint64_t start, std::uint64_t end) {
  add_on_stream<KernelRecord>(buffer, kind, stream, start, end).name = name;
}

template <class Record>
void add_transfer(RecordBuffer& buffer, CUpti_ActivityKind kind, std::uint64_t bytes, std::uint32_t stream,
                  std::uint64_t start, std::uint64_t end) {
  add_on_stream<Record>(buffer, kind, stream, start, end).bytes = bytes;
}

}  // namespace

int main() {
  RecordBuffer buffer;
  add_kernel(buffer, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, kMangledKernel, 13, 1'000'000'123, 1'000'050'456);
  add_transfer<MemcpyRecord>(buffer, CUPTI_ACTIVITY_KIND_MEMCPY, 4096, 7, 2'000'000'001, 2'000'000'902);
  add_transfer<MemsetRecord>(buffer, CUPTI_ACTIVITY_KIND_MEMSET, 64, 21, 3'000'000'005, 3'000'000'077);
  add_kernel(buffer, CUPTI_ACTIVITY_KIND_KERNEL, "plain_c_kernel", 5, 4'000'000'000, 4'000'000'100);
  add_kernel(buffer, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, nullptr, 13, 5'000'000'000, 5'000'000'001);
  buffer.add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);  // not audited: a host-side API call

  expect_read("concurrent kernel", buffer.record(0),
              DeviceActivity{"kernel conv_fp32(float const*, float*, int)", 13, 1'000'000'123, 1'000'050'456});
  expect_read("memcpy", buffer.record(1), DeviceActivity{"memcpy of 4096 bytes", 7, 2'000'000'001, 2'000'000'902});
  expect_read("memset", buffer.record(2), DeviceActivity{"memset of 64 bytes", 21, 3'000'000'005, 3'000'000'077});
  expect_read("serialized kernel with a C name", buffer.record(3),
              DeviceActivity{"kernel plain_c_kernel", 5, 4'000'000'000, 4'000'000'100});
  expect_read("kernel without a name", buffer.record(4),
              DeviceActivity{"kernel <unnamed>", 13, 5'000'000'000, 5'000'000'001});
  expect_read("runtime API record", buffer.record(5), std::nullopt);

  std::printf("cupti_records_test (CUPTI API version %d): %d passed, %d failed\n", CUPTI_API_VERSION, passed,
              failed);
  return failed == 0 ? 0 : 1;
}
