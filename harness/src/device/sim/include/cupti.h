#pragma once
// CUPTI as the simulated GPU has it (cpu build, docs/simulated-gpu.md): the
// activity API the stream audit uses (harness/src/device/cuda/stream_audit.cpp,
// cupti_records.hpp), declared with CUPTI's names, values and record layouts
// (the fields the audit reads where CUPTI 12.4 keeps them), and implemented
// over the simulated runtime's activity records (../cupti_sim.cpp). Only the
// cuda device's sources of the cpu build see this header.
#include <cstddef>
#include <cstdint>

#include "kernelgate/interpret/cuda_shims.hpp"

// The API version of CUPTI 12.4, whose record layouts these are.
#define CUPTI_API_VERSION 22
#define CUPTIAPI

enum CUptiResult {
  CUPTI_SUCCESS = 0,
  CUPTI_ERROR_INVALID_PARAMETER = 1,
  CUPTI_ERROR_MAX_LIMIT_REACHED = 12,
  CUPTI_ERROR_NOT_INITIALIZED = 15,
  CUPTI_ERROR_INVALID_KIND = 21,
};

enum CUpti_ActivityKind {
  CUPTI_ACTIVITY_KIND_MEMCPY = 1,
  CUPTI_ACTIVITY_KIND_MEMSET = 2,
  CUPTI_ACTIVITY_KIND_KERNEL = 3,
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
};

enum CUpti_ActivityFlag { CUPTI_ACTIVITY_FLAG_FLUSH_FORCED = 1 << 0 };

struct CUctx_st;
typedef CUctx_st* CUcontext;

struct CUpti_Activity {
  CUpti_ActivityKind kind;
};

// A kernel record: the fields the audit reads at CUPTI's offsets (kind 0,
// start 16, end 24, streamId 48, name 104), the rest reserved.
struct CUpti_ActivityKernelSimulated {
  CUpti_ActivityKind kind;
  unsigned char reserved_4[12];
  std::uint64_t start;
  std::uint64_t end;
  unsigned char reserved_32[16];
  std::uint32_t streamId;
  unsigned char reserved_52[52];
  const char* name;
  unsigned char reserved_112[96];
};
typedef CUpti_ActivityKernelSimulated CUpti_ActivityKernel4;
typedef CUpti_ActivityKernelSimulated CUpti_ActivityKernel5;
typedef CUpti_ActivityKernelSimulated CUpti_ActivityKernel6;
typedef CUpti_ActivityKernelSimulated CUpti_ActivityKernel7;
typedef CUpti_ActivityKernelSimulated CUpti_ActivityKernel8;
typedef CUpti_ActivityKernelSimulated CUpti_ActivityKernel9;

// A memcpy or memset record: kind 0, bytes 8, start 16, end 24, streamId 40.
struct CUpti_ActivityTransferSimulated {
  CUpti_ActivityKind kind;
  unsigned char reserved_4[4];
  std::uint64_t bytes;
  std::uint64_t start;
  std::uint64_t end;
  unsigned char reserved_32[8];
  std::uint32_t streamId;
  unsigned char reserved_44[44];
};
typedef CUpti_ActivityTransferSimulated CUpti_ActivityMemcpy5;
typedef CUpti_ActivityTransferSimulated CUpti_ActivityMemset4;

typedef void (*CUpti_BuffersCallbackRequestFunc)(std::uint8_t** buffer, std::size_t* size,
                                                 std::size_t* max_records);
typedef void (*CUpti_BuffersCallbackCompleteFunc)(CUcontext context, std::uint32_t stream_id,
                                                  std::uint8_t* buffer, std::size_t size, std::size_t valid_size);

CUptiResult cuptiGetVersion(std::uint32_t* version);
CUptiResult cuptiGetResultString(CUptiResult result, const char** text);
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                           CUpti_BuffersCallbackCompleteFunc completed);
CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind);
CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind);
CUptiResult cuptiActivityFlushAll(std::uint32_t flag);
CUptiResult cuptiActivityGetNextRecord(std::uint8_t* buffer, std::size_t valid_size, CUpti_Activity** record);
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, std::uint32_t stream_id, std::size_t* dropped);
CUptiResult cuptiGetStreamIdEx(CUcontext context, cudaStream_t stream, std::uint8_t per_thread_stream,
                               std::uint32_t* stream_id);
CUptiResult cuptiGetTimestamp(std::uint64_t* timestamp);
