// Host bodies of the PTX wrappers of kernelgate/ptx.hpp.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "block_runner.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/ptx.hpp"
#include "tf32_operand.hpp"

namespace kg::interp {

namespace {

struct MmaPayload {
  const std::uint32_t* a;
  const std::uint32_t* b;
  const float* c;
  float* d;
};

// D = A * B + C for one warp, from the lanes' fragments (PTX ISA, "Matrix
// Fragments for mma.m16n8k8" with .tf32): each element one block FMA of its
// 8 products and c, in the launch's tensor-core arithmetic.
void combine_mma(void* const* payloads, unsigned) {
  float a[16][8];
  float b[8][8];  // b[n][k]: one output column's operands side by side
  float c[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const auto& p = *static_cast<const MmaPayload*>(payloads[lane]);
    const int g = lane >> 2;
    const int t = lane & 3;
    a[g][t] = tf32_operand(p.a[0]);
    a[g + 8][t] = tf32_operand(p.a[1]);
    a[g][t + 4] = tf32_operand(p.a[2]);
    a[g + 8][t + 4] = tf32_operand(p.a[3]);
    b[g][t] = tf32_operand(p.b[0]);
    b[g][t + 4] = tf32_operand(p.b[1]);
    c[g][2 * t] = p.c[0];
    c[g][2 * t + 1] = p.c[1];
    c[g + 8][2 * t] = p.c[2];
    c[g + 8][2 * t + 1] = p.c[3];
  }
  // Every input is gathered before any output is written: d may alias c.
  const TensorCoreArithmetic arithmetic = BlockRunner::active()->arithmetic();
  tensor_core_tile(&a[0][0], &b[0][0], 16, 8, 8, &c[0][0], arithmetic);
  for (int lane = 0; lane < 32; ++lane) {
    const auto& p = *static_cast<const MmaPayload*>(payloads[lane]);
    const int g = lane >> 2;
    const int t = lane & 3;
    p.d[0] = c[g][2 * t];
    p.d[1] = c[g][2 * t + 1];
    p.d[2] = c[g + 8][2 * t];
    p.d[3] = c[g + 8][2 * t + 1];
  }
}

std::string at(const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

void perform(const PendingCopy& copy) {
  if (copy.source_bytes > 0) std::memcpy(copy.destination, copy.source, copy.source_bytes);
  std::memset(static_cast<char*>(copy.destination) + copy.source_bytes, 0,
              copy.bytes - copy.source_bytes);
}

}  // namespace

void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                      const float (&c)[4], const std::source_location& where) {
  MmaPayload payload{a, b, c, d};
  // 16 x 8 x 8 multiply-adds per warp, a 32nd of them per lane.
  if (AccessCounter* counter = AccessCounter::active()) counter->counts().mma_m16n8k8_flops += 2 * 16 * 8 * 8 / 32;
  warp_collective(combine_mma, "mma.sync.m16n8k8.tf32", 0xffffffffu, &payload, where);
}

void cp_async(void* smem_dst, const void* gmem_src, int bytes, int src_bytes,
              const std::source_location& where) {
  Fiber& fiber = BlockRunner::current_fiber("kg::cp_async");
  if (src_bytes < 0 || src_bytes > bytes)
    throw Error("kg::cp_async<" + std::to_string(bytes) + "> at " + at(where) + ": src_bytes " +
                std::to_string(src_bytes) + " is outside [0, " + std::to_string(bytes) + "]");
  if (reinterpret_cast<std::uintptr_t>(smem_dst) % bytes != 0)
    throw Error("kg::cp_async<" + std::to_string(bytes) + "> at " + at(where) +
                ": the shared-memory destination is not aligned to " + std::to_string(bytes) +
                " bytes");
  if (src_bytes > 0 && reinterpret_cast<std::uintptr_t>(gmem_src) % bytes != 0)
    throw Error("kg::cp_async<" + std::to_string(bytes) + "> at " + at(where) +
                ": the global source is not aligned to " + std::to_string(bytes) + " bytes");
  // Until the wait that covers it, the destination holds neither the old
  // bytes nor the new ones for certain: poison it now, so that reading it too
  // early, or refilling a buffer that is still being read (a wgmma's B
  // operand, another thread's fragments), shows.
  std::memset(smem_dst, 0xff, static_cast<std::size_t>(bytes));
  if (AccessCounter* counter = AccessCounter::active()) {
    counter->counts().cp_async_bytes += static_cast<std::uint64_t>(bytes);
    // Every lane takes part in its warp's request, a zero-filling one too
    // (src_bytes 0: it reads nothing), so the lanes' n-th copies stay matched.
    counter->access(gmem_src, static_cast<std::size_t>(src_bytes), false, AccessCounter::site_of(where), true);
  }
  fiber.copies.push_back(PendingCopy{smem_dst, gmem_src, bytes, src_bytes, fiber.committed_groups});
}

void cp_async_commit() {
  Fiber& fiber = BlockRunner::current_fiber("kg::cp_async_commit");
  ++fiber.committed_groups;
}

void cp_async_wait(int pending_groups) {
  Fiber& fiber = BlockRunner::current_fiber("kg::cp_async_wait");
  const auto allowed = static_cast<std::uint64_t>(pending_groups);
  // Groups g with g + N < committed must be complete; newer groups and copies
  // not yet committed stay pending, as on the GPU.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < fiber.copies.size(); ++i) {
    const PendingCopy& copy = fiber.copies[i];
    if (copy.group + allowed < fiber.committed_groups) {
      // A generic-proxy write, unseen by wgmma until this thread fences (the
      // async-proxy log sees it as this thread's at its next look).
      perform(copy);
    } else {
      fiber.copies[kept++] = copy;
    }
  }
  fiber.copies.resize(kept);
}

void fence_proxy_async_shared() {
  Fiber& fiber = BlockRunner::current_fiber("kg::fence_proxy_async_shared");
  BlockRunner& runner = *BlockRunner::active();
  runner.note_shared_writes();  // what this thread wrote before the fence
  runner.async_proxy_log().fence(fiber.linear);
}

}  // namespace kg::interp
