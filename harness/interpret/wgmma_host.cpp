// Host bodies of the wgmma wrappers of kernelgate/ptx.hpp: the shared-memory
// matrix descriptor, wgmma.mma_async m64nNk8 tf32 and m64nNk16 bf16 with
// N = 32 or 64 (A from registers, B from a descriptor), fence, commit_group
// and wait_group.
//
// The asynchrony is made visible rather than hidden: a wgmma computes at its
// issue, but its result reaches the accumulator registers only at the
// wgmma_wait that covers its group; until then they hold NaN. A later wgmma
// on the same accumulator chains on the pending result, as the hardware
// does, if it has the same shape or a wgmma_fence came between them. At
// completion the A fragment must still hold what it held at the issue, and
// so must the shared memory of B (the hardware may read it until then); a
// wgmma needs a wgmma_fence since the last wait; and the four warps of a
// warpgroup must issue the same wgmmas (warpgroup_log.hpp). Each element is
// one block FMA in the launch's tensor-core arithmetic
// (tensor_core_arithmetic.hpp).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "block_runner.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"
#include "kernelgate/ptx.hpp"
#include "tf32_operand.hpp"

namespace kg::interp {

namespace {

// wgmma is sm_90a's alone: a gpu build puts a trap in its place for every
// other architecture (kernelgate/arch.hpp), so on a simulated card of
// another architecture it fails as that trap would. On the cpu device
// interpret mode runs every candidate.
void require_sm_90a(const char* operation) {
  if (!sim::is_open()) return;
  const sim::Card& card = sim::card();
  const int capability = card.compute_capability_major * 10 + card.compute_capability_minor;
  if (capability == 90) return;
  throw Error(std::string(operation) + " is an sm_90a instruction: on sm_" + std::to_string(capability) + " (" +
              card.key + ") the build traps in its place; a candidate that uses it registers "
              ".needs = kg::needs_sm_90a(\"wgmma\") and is not launched there");
}

constexpr int kRows = 16;  // per warp: its quarter of the 64 rows
constexpr int kMaxN = 64;  // BOperandBits' row stride
constexpr int kMaxK = 16;

struct WgmmaPayload {
  WgmmaShape shape;
  const std::uint32_t* a;  // this lane's A fragment
  const float* c;          // this lane's accumulator input; null when not accumulating
  std::uint64_t b_desc;
  bool accumulate;
  const std::source_location* where;
  float result[kMaxN / 2];  // out: this lane's D fragment (n / 2 floats)
  BOperandBits* b_issued;  // lane 0: out, the B operand as read at the issue
};

struct Descriptor {
  std::size_t start, lbo, sbo;
};

Descriptor decode(std::uint64_t desc) {
  const unsigned base_offset = (desc >> 49) & 7u;
  const unsigned swizzle = static_cast<unsigned>(desc >> 62);
  if (swizzle != 0 || base_offset != 0)
    throw Error("the B descriptor asks for swizzle mode " + std::to_string(swizzle) +
                " and base offset " + std::to_string(base_offset) +
                ": interpret mode has only the layout without swizzle "
                "(kg::smem_matrix_descriptor)");
  return Descriptor{static_cast<std::size_t>(desc & 0x3fffu) << 4,
                    static_cast<std::size_t>((desc >> 16) & 0x3fffu) << 4,
                    static_cast<std::size_t>((desc >> 32) & 0x3fffu) << 4};
}

// The bits of B (k x n) as the descriptor lays them out in the block's
// dynamic shared memory: a core-matrix row is 16 bytes, 4 tf32 or 8 bf16.
// With `issued_at`, also checks that no thread wrote them without its
// fence.proxy.async since (async_proxy_log.hpp).
BOperandBits read_b(WgmmaShape shape, std::uint64_t b_desc,
                    const std::source_location* issued_at = nullptr) {
  BlockRunner& runner = *BlockRunner::active();
  const auto* smem = static_cast<const unsigned char*>(runner.dynamic_smem());
  const std::size_t smem_bytes = runner.dynamic_smem_bytes();
  const Descriptor desc = decode(b_desc);
  const std::size_t element = shape.input == WgmmaInput::bf16 ? 2 : 4;
  const int per_row = static_cast<int>(16 / element);
  // The proxy check only in tracked blocks, once per 16-byte row (the row's
  // first element: a row is one chunk of the log).
  const bool check_proxy = issued_at != nullptr && runner.async_proxy_log().tracking();
  BOperandBits bits{};
  for (int k = 0; k < shape.k(); ++k)
    for (int n = 0; n < shape.n; ++n) {
      const std::size_t offset = desc.start + (n / 8) * desc.sbo + (n % 8) * 16 +
                                 (k / per_row) * desc.lbo + (k % per_row) * element;
      if (offset + element > smem_bytes)
        throw Error("B element (k " + std::to_string(k) + ", n " + std::to_string(n) +
                    ") lies at shared offset " + std::to_string(offset) + ", outside the " +
                    std::to_string(smem_bytes) + " bytes of dynamic shared memory");
      std::memcpy(&bits[k * kMaxN + n], smem + offset, element);  // little-endian: low half
      if (!check_proxy || k % per_row != 0) continue;
      const int writer = runner.async_proxy_log().unfenced_writer(offset, 16);
      if (writer != AsyncProxyLog::kNobody)
        throw Error(describe(make_site(wgmma_name(shape), *issued_at)) +
                    ": B (shared offset " + std::to_string(offset) + ") was written by thread " +
                    std::to_string(writer) +
                    " (a store, or a cp.async once waited for) with no "
                    "kg::fence_proxy_async_shared() by that thread since: the wgmma reads "
                    "through the async proxy and may see stale bytes (write, fence, barrier, "
                    "then wgmma)");
    }
  return bits;
}

// A bf16 operand (16 bits) as a float: its high half.
float bf16_operand(std::uint32_t bits16) { return std::bit_cast<float>((bits16 & 0xffffu) << 16); }

// D rows of one warp = its A rows (16 x K) * B (K x n) + C: each element one
// block FMA of its K products and the accumulator, in the launch's
// tensor-core arithmetic (as the mma.sync host body).
void combine_wgmma(void* const* payloads, unsigned) {
  const auto& first = *static_cast<const WgmmaPayload*>(payloads[0]);
  for (int lane = 1; lane < 32; ++lane) {
    const auto& p = *static_cast<const WgmmaPayload*>(payloads[lane]);
    if (!(p.shape == first.shape) || p.b_desc != first.b_desc || p.accumulate != first.accumulate)
      throw Error("the lanes of a warp pass different shapes, B descriptors or accumulate flags");
  }
  const int width = first.shape.n;
  const int depth = first.shape.k();
  const bool bf16 = first.shape.input == WgmmaInput::bf16;
  BlockRunner::active()->note_shared_writes();  // the stores before the issue count
  const BOperandBits bits = read_b(first.shape, first.b_desc, first.where);
  // Packed as tensor_core_tile takes them: b[n * depth + k], a[row * depth
  // + k], acc[row * width + n].
  float b[kMaxN * kMaxK];
  for (int k = 0; k < depth; ++k)
    for (int n = 0; n < width; ++n) {
      const std::uint32_t element = bits[k * kMaxN + n];
      b[n * depth + k] = bf16 ? bf16_operand(element) : tf32_operand(element);
    }

  float a[kRows * kMaxK];
  float acc[kRows * kMaxN];
  for (int lane = 0; lane < 32; ++lane) {
    const auto& p = *static_cast<const WgmmaPayload*>(payloads[lane]);
    const int g = lane >> 2, t = lane & 3;
    if (bf16) {
      // Register r: rows g (r even) or g + 8, columns 2t, 2t + 1 (+ 8 for r >= 2).
      for (int r = 0; r < 4; ++r) {
        const int row = g + 8 * (r & 1), column = 2 * t + 8 * (r >> 1);
        a[row * depth + column] = bf16_operand(p.a[r]);
        a[row * depth + column + 1] = bf16_operand(p.a[r] >> 16);
      }
    } else {
      a[g * depth + t] = tf32_operand(p.a[0]);
      a[(g + 8) * depth + t] = tf32_operand(p.a[1]);
      a[g * depth + t + 4] = tf32_operand(p.a[2]);
      a[(g + 8) * depth + t + 4] = tf32_operand(p.a[3]);
    }
    for (int j = 0; j < width / 8; ++j)
      for (int r = 0; r < 4; ++r)
        acc[(g + 8 * (r >> 1)) * width + 8 * j + 2 * t + (r & 1)] = p.accumulate ? p.c[4 * j + r] : 0.0f;
  }
  tensor_core_tile(a, b, kRows, width, depth, acc, BlockRunner::active()->arithmetic());
  for (int lane = 0; lane < 32; ++lane) {
    auto& p = *static_cast<WgmmaPayload*>(payloads[lane]);
    const int g = lane >> 2, t = lane & 3;
    for (int j = 0; j < width / 8; ++j)
      for (int r = 0; r < 4; ++r)
        p.result[4 * j + r] = acc[(g + 8 * (r >> 1)) * width + 8 * j + 2 * t + (r & 1)];
  }
  *static_cast<WgmmaPayload*>(payloads[0])->b_issued = bits;
}

std::string where_text(const char* operation, const std::source_location& where) {
  return describe(make_site(operation, where));
}

}  // namespace

std::uint64_t smem_matrix_descriptor(const void* smem, std::uint32_t lbo_bytes,
                                     std::uint32_t sbo_bytes, const std::source_location& where) {
  BlockRunner::current_fiber("kg::smem_matrix_descriptor");
  const BlockRunner& runner = *BlockRunner::active();
  const auto* base = static_cast<const unsigned char*>(runner.dynamic_smem());
  const auto* p = static_cast<const unsigned char*>(smem);
  const std::string site = where_text("kg::smem_matrix_descriptor", where);
  if (p < base || p >= base + runner.dynamic_smem_bytes())
    throw Error(site + ": the operand is not in the block's dynamic shared memory");
  const auto offset = static_cast<std::uint64_t>(p - base);
  if (offset % 16 != 0 || lbo_bytes % 16 != 0 || sbo_bytes % 16 != 0)
    throw Error(site + ": start (offset " + std::to_string(offset) + "), leading byte offset " +
                std::to_string(lbo_bytes) + " and stride byte offset " +
                std::to_string(sbo_bytes) + " must be multiples of 16 bytes");
  if ((lbo_bytes >> 4) > 0x3fffu || (sbo_bytes >> 4) > 0x3fffu)
    throw Error(site + ": a byte offset does not fit the descriptor's 14-bit field");
  // Interpret mode's shared addresses count from the dynamic shared memory.
  return offset >> 4 | static_cast<std::uint64_t>(lbo_bytes >> 4) << 16 |
         static_cast<std::uint64_t>(sbo_bytes >> 4) << 32;
}

void wgmma(float* flat, int n, WgmmaInput input, const std::uint32_t (&a)[4],
           std::uint64_t b_desc, bool accumulate, const std::source_location& where) {
  const WgmmaShape shape{n, input};
  const char* operation = wgmma_name(shape);
  require_sm_90a(operation);
  Fiber& fiber = BlockRunner::current_fiber(operation);
  const int count = n / 2;  // accumulator floats per lane
  const unsigned threads = BlockRunner::active()->thread_count();
  if (threads % 128 != 0)
    throw Error(where_text(operation, where) + ": the block has " + std::to_string(threads) +
                " threads, not whole warpgroups of 128");
  if (!fiber.wgmma_fenced)
    throw Error(where_text(operation, where) +
                ": no kg::wgmma_fence since the start of the thread or its last wgmma_wait");
  auto pending = std::find_if(fiber.wgmma_results.begin(), fiber.wgmma_results.end(),
                              [&](const PendingWgmmaResult& r) { return r.d == flat; });
  const bool chained = pending != fiber.wgmma_results.end();
  if (chained && pending->count != count)
    throw Error(where_text(operation, where) + ": accumulates into registers the pending " +
                where_text(wgmma_name(pending->shape), pending->where) +
                " writes with another width");
  if (chained && !(pending->shape == shape) && !pending->fenced)
    throw Error(where_text(operation, where) + ": chains onto the accumulator of the pending " +
                where_text(wgmma_name(pending->shape), pending->where) +
                ", a wgmma of another shape, with no kg::wgmma_fence between them (PTX orders "
                "accumulator accesses only between wgmmas of the same shape)");
  // The operand record, with the group filled in below. Lane 0 of each warp
  // keeps in it the B operand as read at the issue. The fiber owns the record
  // before the collective, so a block abandoned there (another lane's error)
  // frees it with the fiber's state, not with this frame, which never returns.
  const bool lane_0 = fiber.linear % 32 == 0;
  PendingWgmmaOperand& operand = fiber.wgmma_operands.emplace_back(PendingWgmmaOperand{
      shape, a, {a[0], a[1], a[2], a[3]}, 0, where, b_desc,
      lane_0 ? std::make_unique<BOperandBits>() : nullptr});
  BlockRunner::active()->kernel_reads_through_async_proxy();
  // 64 x N x K multiply-adds per warpgroup, a 128th of them per lane.
  if (AccessCounter* counter = AccessCounter::active())
    counter->counts().wgmma_flops += 2 * 64 * static_cast<std::uint64_t>(n) * shape.k() / 128;
  WgmmaPayload payload{shape, a, chained ? pending->values : flat, b_desc, accumulate, &where, {},
                       operand.b_issued.get()};
  warp_collective(combine_wgmma, operation, 0xffffffffu, &payload, where);
  const std::uint64_t group = fiber.wgmma_groups;  // the group the next commit closes
  operand.group = group;
  if (chained) {
    std::copy_n(payload.result, count, pending->values);
    pending->group = group;
    pending->shape = shape;
    pending->where = where;
    pending->fenced = false;
  } else {
    PendingWgmmaResult result{flat, {}, count, group, shape, where, false};
    std::copy_n(payload.result, count, result.values);
    fiber.wgmma_results.push_back(result);
  }
  std::fill(flat, flat + count, std::numeric_limits<float>::quiet_NaN());
  // Once per warp: the warps of a warpgroup must agree; and B must stay as it
  // is until the wgmma completes, which the warp's lane 0 checks at its wait.
  if (lane_0)
    BlockRunner::active()->warpgroup_log().issue(fiber.linear / 32,
                                                 WgmmaIssue{shape, b_desc, accumulate, where});
}

void wgmma_fence() {
  require_sm_90a("kg::wgmma_fence");
  Fiber& fiber = BlockRunner::current_fiber("kg::wgmma_fence");
  fiber.wgmma_fenced = true;
  for (PendingWgmmaResult& result : fiber.wgmma_results) result.fenced = true;
}

void wgmma_commit() { ++BlockRunner::current_fiber("kg::wgmma_commit").wgmma_groups; }

void wgmma_wait(int pending_groups, const std::source_location& where) {
  Fiber& fiber = BlockRunner::current_fiber("kg::wgmma_wait");
  const auto allowed = static_cast<std::uint64_t>(pending_groups);
  auto complete = [&](std::uint64_t group) { return group + allowed < fiber.wgmma_groups; };
  for (const PendingWgmmaOperand& operand : fiber.wgmma_operands) {
    if (!complete(operand.group)) continue;
    auto wgmma = [&] { return where_text(wgmma_name(operand.shape), operand.where); };
    if (!std::equal(operand.issued, operand.issued + 4, operand.a))
      throw Error(wgmma() + ": its A fragment changed before the " +
                  where_text("wgmma_wait", where) + " that completes it");
    if (operand.b_issued && read_b(operand.shape, operand.b_desc) != *operand.b_issued)
      throw Error(wgmma() + ": the shared memory of its B operand was written before the " +
                  where_text("wgmma_wait", where) +
                  " that completes it (a buffer reused while the wgmma may still read it)");
  }
  std::erase_if(fiber.wgmma_operands,
                [&](const PendingWgmmaOperand& operand) { return complete(operand.group); });
  std::erase_if(fiber.wgmma_results, [&](const PendingWgmmaResult& result) {
    if (!complete(result.group)) return false;
    std::copy_n(result.values, result.count, result.d);
    return true;
  });
  fiber.wgmma_fenced = false;  // the thread may now touch the registers
}

}  // namespace kg::interp
