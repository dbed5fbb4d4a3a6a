#pragma once
// The CUPTI activity records the stream audit reads (kernels, memcpys,
// memsets) and the one function that reads them into its DeviceActivity.
//
// CUPTI adds a version of a record type now and then (CUpti_ActivityKernel9
// in CUDA 12.x, 10 in 13.0, ...) and writes the newest its library knows,
// which can be newer than the headers of the build. The audit reads only
// kind, bytes, start, end, streamId and name, which every version from
// CUDA 12.4 on keeps at the same offsets: the static_asserts hold each
// version these headers declare to those offsets, so that a CUPTI that moves
// one fails to compile instead of misreading its records.
#include <cupti.h>
#include <cxxabi.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "kernelgate/detail/stream_audit_rule.hpp"

#if !defined(CUPTI_API_VERSION) || CUPTI_API_VERSION < 22
#error "kernelgate's gpu build needs CUDA 12.4 or later: these CUPTI headers are older than CUPTI API version 22, the oldest whose activity records the stream audit is checked against"
#endif

namespace kg::cuda_detail {

// The newest version of each record these headers declare, as far as the
// header sets the project checks tell: Kernel9, Memcpy5 and Memset4 in CUDA
// 12.4 (CUPTI API 22); Memcpy6 from 12.8 (26); Kernel10 from 13.0 (130000).
// Versions in between take the older type, which they still declare.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif
#if CUPTI_API_VERSION >= 26
using MemcpyRecord = CUpti_ActivityMemcpy6;
#else
using MemcpyRecord = CUpti_ActivityMemcpy5;
#endif
using MemsetRecord = CUpti_ActivityMemset4;

// Where the fields the audit reads sit in every version it may be handed.
namespace record_offset {
inline constexpr std::size_t kKind = 0;
inline constexpr std::size_t kKernelStart = 16, kKernelEnd = 24, kKernelStream = 48, kKernelName = 104;
inline constexpr std::size_t kTransferBytes = 8, kTransferStart = 16, kTransferEnd = 24, kTransferStream = 40;
}  // namespace record_offset

template <class Record>
constexpr bool kernel_fields_in_place() {
  namespace at = record_offset;
  return offsetof(Record, kind) == at::kKind && offsetof(Record, start) == at::kKernelStart &&
         offsetof(Record, end) == at::kKernelEnd && offsetof(Record, streamId) == at::kKernelStream &&
         offsetof(Record, name) == at::kKernelName;
}

// Memcpy and memset records share the fields the audit reads.
template <class Record>
constexpr bool transfer_fields_in_place() {
  namespace at = record_offset;
  return offsetof(Record, kind) == at::kKind && offsetof(Record, bytes) == at::kTransferBytes &&
         offsetof(Record, start) == at::kTransferStart && offsetof(Record, end) == at::kTransferEnd &&
         offsetof(Record, streamId) == at::kTransferStream;
}

static_assert(kernel_fields_in_place<CUpti_ActivityKernel4>(), "CUpti_ActivityKernel4 moved a field the audit reads");
static_assert(kernel_fields_in_place<CUpti_ActivityKernel5>(), "CUpti_ActivityKernel5 moved a field the audit reads");
static_assert(kernel_fields_in_place<CUpti_ActivityKernel6>(), "CUpti_ActivityKernel6 moved a field the audit reads");
static_assert(kernel_fields_in_place<CUpti_ActivityKernel7>(), "CUpti_ActivityKernel7 moved a field the audit reads");
static_assert(kernel_fields_in_place<CUpti_ActivityKernel8>(), "CUpti_ActivityKernel8 moved a field the audit reads");
static_assert(kernel_fields_in_place<CUpti_ActivityKernel9>(), "CUpti_ActivityKernel9 moved a field the audit reads");
#if CUPTI_API_VERSION >= 130000
static_assert(kernel_fields_in_place<CUpti_ActivityKernel10>(), "CUpti_ActivityKernel10 moved a field the audit reads");
#endif
static_assert(transfer_fields_in_place<CUpti_ActivityMemcpy5>(), "CUpti_ActivityMemcpy5 moved a field the audit reads");
#if CUPTI_API_VERSION >= 26
static_assert(transfer_fields_in_place<CUpti_ActivityMemcpy6>(), "CUpti_ActivityMemcpy6 moved a field the audit reads");
#endif
static_assert(transfer_fields_in_place<CUpti_ActivityMemset4>(), "CUpti_ActivityMemset4 moved a field the audit reads");

// A kernel's name as written in its source; CUPTI's mangled name where it
// does not demangle, and "<unnamed>" where CUPTI gave none.
inline std::string demangled_kernel_name(const char* name) {
  if (name == nullptr) return "<unnamed>";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> readable(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && readable ? std::string(readable.get()) : std::string(name);
}

// What the audit knows of one record: "kernel <name>", "memcpy of N bytes" or
// "memset of N bytes" with its stream and times; nothing for the kinds it
// does not audit.
inline std::optional<DeviceActivity> read_device_activity(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* kernel = reinterpret_cast<const KernelRecord*>(record);
      return DeviceActivity{"kernel " + demangled_kernel_name(kernel->name), kernel->streamId, kernel->start,
                            kernel->end};
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* copy = reinterpret_cast<const MemcpyRecord*>(record);
      return DeviceActivity{"memcpy of " + std::to_string(copy->bytes) + " bytes", copy->streamId, copy->start,
                            copy->end};
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* set = reinterpret_cast<const MemsetRecord*>(record);
      return DeviceActivity{"memset of " + std::to_string(set->bytes) + " bytes", set->streamId, set->start,
                            set->end};
    }
    default:
      return std::nullopt;
  }
}

}  // namespace kg::cuda_detail
