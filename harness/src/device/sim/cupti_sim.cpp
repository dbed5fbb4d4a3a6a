// CUPTI's activity API on the simulated GPU (include/cupti.h): the
// simulated runtime records each kernel, copy and memset as it runs, with its
// stream and times; a flush hands them to the client's buffers as CUPTI
// records laid out as CUPTI lays them out, which the stream audit reads
// through cupti_records.hpp exactly as it reads a GPU's.
#include <cupti.h>

#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "kernelgate/interpret/simulated_gpu.hpp"

namespace {

using kg::interp::sim::Activity;

struct Client {
  std::mutex mutex;
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;
  std::deque<std::string> names;  // kernel names the records point to, kept for the process
};

Client& client() {
  static Client* instance = new Client;  // records may be read while the process exits
  return *instance;
}

bool kind_of(CUpti_ActivityKind kind, Activity::Kind& audited) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: audited = Activity::Kind::kernel; return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY: audited = Activity::Kind::memcpy; return true;
    case CUPTI_ACTIVITY_KIND_MEMSET: audited = Activity::Kind::memset; return true;
  }
  return false;
}

std::size_t record_size(const Activity& activity) {
  return activity.kind == Activity::Kind::kernel ? sizeof(CUpti_ActivityKernelSimulated)
                                                 : sizeof(CUpti_ActivityTransferSimulated);
}

// Writes one record at `at`, as CUPTI would.
void write_record(const Activity& activity, std::uint8_t* at) {
  if (activity.kind == Activity::Kind::kernel) {
    CUpti_ActivityKernelSimulated record{};
    record.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    record.start = activity.start_ns;
    record.end = activity.end_ns;
    record.streamId = static_cast<std::uint32_t>(activity.stream_id);
    record.name = client().names.emplace_back(activity.name).c_str();
    std::memcpy(at, &record, sizeof record);
    return;
  }
  CUpti_ActivityTransferSimulated record{};
  record.kind = activity.kind == Activity::Kind::memcpy ? CUPTI_ACTIVITY_KIND_MEMCPY : CUPTI_ACTIVITY_KIND_MEMSET;
  record.bytes = activity.bytes;
  record.start = activity.start_ns;
  record.end = activity.end_ns;
  record.streamId = static_cast<std::uint32_t>(activity.stream_id);
  std::memcpy(at, &record, sizeof record);
}

}  // namespace

CUptiResult cuptiGetVersion(std::uint32_t* version) {
  if (version == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
  if (text == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS: *text = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *text = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *text = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_NOT_INITIALIZED: *text = "CUPTI_ERROR_NOT_INITIALIZED"; break;
    case CUPTI_ERROR_INVALID_KIND: *text = "CUPTI_ERROR_INVALID_KIND"; break;
    default: *text = "CUPTI_ERROR_UNKNOWN"; break;
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                           CUpti_BuffersCallbackCompleteFunc completed) {
  if (requested == nullptr || completed == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard lock(client().mutex);
  client().requested = requested;
  client().completed = completed;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  Activity::Kind audited;
  if (!kind_of(kind, audited)) return CUPTI_ERROR_INVALID_KIND;
  kg::interp::sim::record_activities(audited, true);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  Activity::Kind audited;
  if (!kind_of(kind, audited)) return CUPTI_ERROR_INVALID_KIND;
  kg::interp::sim::record_activities(audited, false);
  return CUPTI_SUCCESS;
}

// Hands every record made so far to the client, a buffer at a time.
CUptiResult cuptiActivityFlushAll(std::uint32_t) {
  Client& c = client();
  std::lock_guard lock(c.mutex);
  if (c.requested == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
  const std::vector<Activity> activities = kg::interp::sim::take_activities();
  std::size_t next = 0;
  while (next < activities.size()) {
    std::uint8_t* buffer = nullptr;
    std::size_t size = 0, max_records = 0;
    c.requested(&buffer, &size, &max_records);
    if (buffer == nullptr || size < record_size(activities[next])) return CUPTI_ERROR_INVALID_PARAMETER;
    std::size_t used = 0;
    while (next < activities.size() && used + record_size(activities[next]) <= size) {
      write_record(activities[next], buffer + used);
      used += record_size(activities[next++]);
    }
    c.completed(nullptr, 0, buffer, size, used);
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(std::uint8_t* buffer, std::size_t valid_size, CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  // *record is the previous record, or null for the first.
  std::size_t offset = 0;
  if (*record != nullptr) {
    const auto* previous = reinterpret_cast<std::uint8_t*>(*record);
    const bool kernel = (*record)->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
                        (*record)->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    offset = static_cast<std::size_t>(previous - buffer) +
             (kernel ? sizeof(CUpti_ActivityKernelSimulated) : sizeof(CUpti_ActivityTransferSimulated));
  }
  if (offset + sizeof(CUpti_Activity) > valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, std::uint32_t, std::size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetStreamIdEx(CUcontext, cudaStream_t stream, std::uint8_t, std::uint32_t* stream_id) {
  if (stream_id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  const long long id = kg::interp::sim::stream_id(stream);
  if (id < 0) return CUPTI_ERROR_INVALID_PARAMETER;
  *stream_id = static_cast<std::uint32_t>(id);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(std::uint64_t* timestamp) {
  if (timestamp == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = kg::interp::sim::now_ns();
  return CUPTI_SUCCESS;
}
