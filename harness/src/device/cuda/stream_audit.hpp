#pragma once
// The stream audit of the cuda device: while a candidate runs, CUPTI records
// every kernel, memcpy and memset the process puts on the GPU. Work on any
// stream other than the harness's, or work that starts after the candidate's
// work on the harness stream has finished (a host thread it left behind), is a
// contract violation (docs/gpu-runner.md, "Stream audit").
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernelgate/detail/stream_audit_rule.hpp"

namespace kg::cuda_detail {

// Throws kg::Error with one line when the CUPTI library loaded is one the
// audit must not use (cupti_version_problem, on the version the library
// reports). The parent of a run asks before any candidate runs.
void require_usable_cupti();

class StreamAudit {
 public:
  static StreamAudit& instance();  // CUPTI's buffer callbacks are per process

  // Waits for the device to go idle, forgets older records, starts recording.
  void begin(cudaStream_t harness_stream);
  // Waits for the harness stream, then for the whole device, stops recording
  // and judges (judge_stream_audit). Empty when every record was on the harness stream in time.
  std::string end();

  // CUPTI callbacks (C linkage not needed: CUPTI only takes their address).
  static void buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
  static void buffer_completed(void* context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t size,
                               std::size_t valid_size);

 private:
  StreamAudit() = default;
  // Each begin() starts here: refuses a CUPTI library the audit must not use
  // (require_usable_cupti, asked once), and hands CUPTI the buffer callbacks
  // the first time.
  void prepare();
  void enable(bool on);
  void collect(std::uint8_t* buffer, std::size_t valid_size);

  std::mutex mutex_;
  bool cupti_checked_ = false;
  bool callbacks_registered_ = false;
  bool active_ = false;
  cudaStream_t stream_ = nullptr;
  std::uint32_t harness_stream_id_ = 0;
  std::vector<DeviceActivity> records_;
};

}  // namespace kg::cuda_detail
