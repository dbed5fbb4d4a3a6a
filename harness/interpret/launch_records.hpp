#pragma once
#include "kernelgate/interpret/launch.hpp"

namespace kg::interp {
// The id a record keeps of a stream (0: the default stream).
unsigned long long stream_id_of(cudaStream_t stream);
// Appends one record; thread-safe.
void record_operation(const LaunchRecord& record);
}  // namespace kg::interp
