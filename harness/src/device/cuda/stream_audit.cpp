// CUPTI activity records -> the stream audit's verdict.
#include "stream_audit.hpp"

#include <cupti.h>

#include <cstdio>
#include <cstdlib>

#include "cupti_records.hpp"
#include "kernelgate/cuda_check.hpp"
#include "kernelgate/error.hpp"

namespace kg::cuda_detail {
namespace {

constexpr std::size_t kBufferBytes = 4u << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI requires 8-byte aligned buffers

constexpr CUpti_ActivityKind kAuditedKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,  // kernels without serialising them
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
};

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  StreamAudit::buffer_requested(buffer, size, max_records);
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size,
                                  size_t valid_size) {
  StreamAudit::buffer_completed(context, stream_id, buffer, size, valid_size);
}

}  // namespace

StreamAudit& StreamAudit::instance() {
  // Never destroyed: CUPTI may still deliver a buffer while the process exits
  // (a candidate that faulted inside the audit never reached end()).
  static StreamAudit& audit = *new StreamAudit;
  return audit;
}

void StreamAudit::buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void StreamAudit::buffer_completed(void*, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid_size) {
  if (buffer == nullptr) return;
  instance().collect(buffer, valid_size);
  std::free(buffer);
}

void StreamAudit::collect(std::uint8_t* buffer, std::size_t valid_size) {
  std::lock_guard lock(mutex_);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    if (!active_) continue;  // leftovers from before begin(): not the candidate's
    if (std::optional<DeviceActivity> activity = read_device_activity(record))
      records_.push_back(std::move(*activity));
  }
}

void StreamAudit::enable(bool on) {
  for (CUpti_ActivityKind kind : kAuditedKinds) {
    if (on)
      KG_CUPTI_CHECK(cuptiActivityEnable(kind));
    else
      KG_CUPTI_CHECK(cuptiActivityDisable(kind));
  }
}

void require_usable_cupti() {
  // The library loaded, not the headers built against, decides.
  std::uint32_t api_version = 0;
  KG_CUPTI_CHECK(cuptiGetVersion(&api_version));
  if (const std::optional<std::string> problem = cupti_version_problem(api_version)) throw Error(*problem);
}

void StreamAudit::prepare() {
  std::lock_guard lock(mutex_);
  if (!cupti_checked_) {
    require_usable_cupti();
    cupti_checked_ = true;
  }
  if (!callbacks_registered_) {
    KG_CUPTI_CHECK(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed));
    callbacks_registered_ = true;
  }
}

void StreamAudit::begin(cudaStream_t harness_stream) {
  prepare();
  // Whatever ran before belongs to the harness: finish it and drop its records.
  KG_CUDA_CHECK(cudaDeviceSynchronize());
  KG_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::uint32_t stream_id = 0;
  KG_CUPTI_CHECK(cuptiGetStreamIdEx(nullptr, harness_stream, 0, &stream_id));
  {
    std::lock_guard lock(mutex_);
    records_.clear();
    stream_ = harness_stream;
    harness_stream_id_ = stream_id;
    active_ = true;
  }
  enable(true);
}

std::string StreamAudit::end() {
  // When the harness stream has drained, the candidate's legitimate work is done.
  cudaEvent_t done = nullptr;
  KG_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  KG_CUDA_CHECK(cudaEventRecord(done, stream_));
  const cudaError_t waited = cudaEventSynchronize(done);
  cudaEventDestroy(done);
  KG_CUDA_CHECK(waited);
  std::uint64_t harness_done_ns = 0;
  KG_CUPTI_CHECK(cuptiGetTimestamp(&harness_done_ns));
  // Anything still running elsewhere finishes now, so its record arrives.
  KG_CUDA_CHECK(cudaDeviceSynchronize());
  enable(false);
  KG_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
    std::fprintf(stderr, "kernelgate: warning: the stream audit lost %zu CUPTI records\n", dropped);

  std::lock_guard lock(mutex_);
  active_ = false;
  std::vector<DeviceActivity> records = std::move(records_);
  records_.clear();
  return judge_stream_audit(records, harness_stream_id_, harness_done_ns);
}

}  // namespace kg::cuda_detail
