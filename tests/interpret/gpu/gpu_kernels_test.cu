// The interpret-mode test kernels run on the GPU (gpu build, label `gpu`).
// A .cu file because kernelgate/cuda.hpp (kg::launch) needs nvcc in the gpu build.
// They must give what the interpret tests assert: bit for bit where the result
// is exact (integer data, exact mma sums, shuffles, votes, cvt bit patterns).
// Without a GPU the tests skip, unless KERNELGATE_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "exact_gemm_inputs.hpp"
#include "kernels/test_kernels.hpp"
#include "support/device_vector.hpp"
#include "tensor_core_vectors.hpp"

namespace kg::test {
namespace {

// The wgmma kernels run on sm_90 alone; a gpu build compiles them for every
// architecture of its list with a trap elsewhere (kernelgate/arch.hpp), so
// on another GPU their tests skip, saying why. Not a missing GPU: skipped
// under KERNELGATE_REQUIRE_GPU=1 too.
#define KG_REQUIRE_SM90()                                                                            \
  do {                                                                                               \
    KG_REQUIRE_GPU();                                                                                \
    cudaDeviceProp properties{};                                                                     \
    ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);                                 \
    if (properties.major != 9 || properties.minor != 0)                                              \
      GTEST_SKIP() << "wgmma needs sm_90a; this GPU is sm_" << properties.major << properties.minor; \
  } while (0)

TEST(GpuInterpretKernels, BlockReduceSum) {
  KG_REQUIRE_GPU();
  const int blocks = 3, threads = 256;
  std::vector<float> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7) % 13);
  DeviceVector<float> d_in(in), d_out(std::vector<float>(blocks, -1.0f));
  block_reduce_sum(d_in.get(), d_out.get(), blocks, 16, 16, nullptr);
  const auto out = d_out.read();
  for (int b = 0; b < blocks; ++b) {
    float want = 0;
    for (int t = 0; t < threads; ++t) want += in[b * threads + t];
    EXPECT_EQ(out[b], want);
  }
}

TEST(GpuInterpretKernels, ShufflesMatchTheInterpreter) {
  KG_REQUIRE_GPU();
  struct Case {
    ShuffleKind kind;
    unsigned mask;
    int operand, width;
  };
  const std::vector<Case> cases = {
      {ShuffleKind::idx, ~0u, 5, 32},  {ShuffleKind::idx, ~0u, 11, 8},
      {ShuffleKind::idx, ~0u, -1, 32}, {ShuffleKind::up, ~0u, 3, 8},
      {ShuffleKind::down, ~0u, 5, 16}, {ShuffleKind::down, 0xffffu, 4, 16},
      {ShuffleKind::bfly, ~0u, 1, 32}, {ShuffleKind::bfly, ~0u, 16, 8}};
  for (const Case& c : cases) {
    // The PTX ISA's shfl.sync pseudo-code, as the interpreter implements it.
    std::vector<int> want(32, -1);
    for (int lane = 0; lane < 32; ++lane) {
      if (!((c.mask >> lane) & 1u)) continue;
      const int seg = (32 - c.width) & 31, clamp = c.kind == ShuffleKind::up ? 0 : 31;
      const int b = c.operand & 31, max_lane = (lane & seg) | (clamp & ~seg);
      int j = lane;
      bool ok = true;
      switch (c.kind) {
        case ShuffleKind::idx: j = (lane & seg) | (b & ~seg); ok = j <= max_lane; break;
        case ShuffleKind::up: j = lane - b; ok = j >= max_lane; break;
        case ShuffleKind::down: j = lane + b; ok = j <= max_lane; break;
        case ShuffleKind::bfly: j = lane ^ b; ok = j <= max_lane; break;
      }
      want[lane] = 100 + (ok ? j : lane);
    }
    DeviceVector<int> d_out(std::vector<int>(32, -1));
    shuffle(c.kind, c.mask, c.operand, c.width, d_out.get(), nullptr);
    EXPECT_EQ(d_out.read(), want) << "kind " << static_cast<int>(c.kind) << " operand "
                                  << c.operand << " width " << c.width;
  }
}

TEST(GpuInterpretKernels, Votes) {
  KG_REQUIRE_GPU();
  DeviceVector<unsigned> d_out(std::vector<unsigned>(96, 0xdeadbeefu));
  vote(0x00ff00ffu, 0xffff0001u, d_out.get(), nullptr);
  const auto out = d_out.read();
  EXPECT_EQ(out[0], 0x00ff0001u);
  EXPECT_EQ(out[3 * 16 + 1], 1u);
  EXPECT_EQ(out[3 * 16 + 2], 0u);
  EXPECT_EQ(out[3 * 8], 0xdeadbeefu);
}

TEST(GpuInterpretKernels, CvtRnaTf32) {
  KG_REQUIRE_GPU();
  const std::vector<std::uint32_t> in_bits = {0x3f800fffu, 0x3f801000u, 0x3f803000u, 0xbf801000u,
                                              0x3fffffffu, 0x7f7fffffu, 0xff800000u, 0x00001000u};
  const std::vector<std::uint32_t> want = {0x3f800000u, 0x3f802000u, 0x3f804000u, 0xbf802000u,
                                           0x40000000u, 0x7f800000u, 0xff800000u, 0x00002000u};
  std::vector<float> in;
  for (auto bits : in_bits) in.push_back(std::bit_cast<float>(bits));
  DeviceVector<float> d_in(in);
  DeviceVector<std::uint32_t> d_out(std::vector<std::uint32_t>(in.size()));
  cvt_rna_tf32(d_in.get(), d_out.get(), static_cast<int>(in.size()), nullptr);
  EXPECT_EQ(d_out.read(), want);
}

TEST(GpuInterpretKernels, PackBf16x2) {
  KG_REQUIRE_GPU();
  const std::vector<std::uint32_t> low_bits = {0x3f807fffu, 0x3f808000u, 0x3f818000u,
                                               0xbf818000u, 0x3fffffffu, 0x7f7fffffu};
  const std::vector<std::uint32_t> want = {0xc0003f80u, 0xc0003f80u, 0xc0003f82u,
                                           0xc000bf82u, 0xc0004000u, 0xc0007f80u};
  std::vector<float> low, high(low_bits.size(), -2.0f);
  for (auto bits : low_bits) low.push_back(std::bit_cast<float>(bits));
  DeviceVector<float> d_low(low), d_high(high);
  DeviceVector<std::uint32_t> d_out(std::vector<std::uint32_t>(low.size()));
  pack_bf16x2(d_low.get(), d_high.get(), d_out.get(), static_cast<int>(low.size()), nullptr);
  EXPECT_EQ(d_out.read(), want);
}

TEST(GpuInterpretKernels, MmaOnExactInputs) {
  KG_REQUIRE_GPU();
  const ExactGemmInputs inputs(16, 8, 8);
  DeviceVector<float> d_a(inputs.a), d_b(inputs.b), d_c(inputs.c), d_d(std::vector<float>(128));
  mma_16x8x8(d_a.get(), d_b.get(), d_c.get(), d_d.get(), true, nullptr);
  EXPECT_EQ(d_d.read(), inputs.product());
}

TEST(GpuInterpretKernels, CpAsyncZeroFill) {
  KG_REQUIRE_GPU();
  const std::vector<float> src = {1, 2, 3, 4, 5, 6, 7, 8};
  DeviceVector<float> d_src(src), before(std::vector<float>(8)), first(std::vector<float>(8)),
      all(std::vector<float>(8));
  cp_async_groups(d_src.get(), 8, before.get(), first.get(), all.get(), nullptr);
  EXPECT_EQ(all.read(), (std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0}));
  const auto after_first = first.read();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(after_first[i], src[i]);
}

TEST(GpuInterpretKernels, TiledGemm) {
  KG_REQUIRE_GPU();
  const int m = 40, n = 36, k = 20;
  std::vector<float> a(m * k), b(k * n), want(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 5) % 9 - 4) * 0.5f;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
      want[i * n + j] = static_cast<float>(sum);
    }
  DeviceVector<float> d_a(a), d_b(b), d_c(std::vector<float>(m * n, -7.0f));
  tiled_gemm_tf32(d_a.get(), d_b.get(), d_c.get(), m, n, k, nullptr);
  EXPECT_EQ(d_c.read(), want);
}

// Also pins what interpret mode assumes of wgmma: the A and D fragment
// layouts and the meaning of the descriptor's two byte offsets.
TEST(GpuInterpretKernels, WgmmaOnExactInputs) {
  KG_REQUIRE_SM90();
  using ProductKernel = void (*)(int, const float*, const float*, const float*, float*, bool,
                                 cudaStream_t);
  const std::pair<const char*, ProductKernel> kernels[] = {{"tf32", wgmma_64xnx16},
                                                            {"bf16", wgmma_64xnx16_bf16}};
  for (const auto& [input, product] : kernels)
    for (int n : {64, 32}) {
      const ExactGemmInputs inputs(64, 16, n);
      DeviceVector<float> d_a(inputs.a), d_b(inputs.b), d_c(inputs.c);
      for (bool accumulate : {true, false}) {
        DeviceVector<float> d_d(std::vector<float>(64 * n, -1.0f));
        product(n, d_a.get(), d_b.get(), d_c.get(), d_d.get(), accumulate, nullptr);
        EXPECT_EQ(d_d.read(), inputs.product(accumulate))
            << input << ", n " << n << (accumulate ? ", accumulate" : ", D = A B");
      }
    }
}

// The tensor-core feature vectors through the hardware: each must give what
// interpret mode's `hopper` arithmetic gives (docs/interpret-mode.md,
// "Tensor-core arithmetic"). A failure here means the model is wrong for
// this GPU, not the kernel.
TEST(GpuInterpretKernels, TensorCoresComputeAsTheHopperModel) {
  KG_REQUIRE_SM90();
  for (const TensorCoreVector& v : tensor_core_vectors()) {
    const VectorOperands o = operands_of(v);
    DeviceVector<float> d_a(o.a), d_b(o.b), d_c(o.c), d_d(std::vector<float>(o.c.size(), -1.0f));
    if (v.k == 8)
      mma_16x8x8(d_a.get(), d_b.get(), d_c.get(), d_d.get(), /*convert=*/false, nullptr);
    else
      wgmma_64xnx16_bf16(64, d_a.get(), d_b.get(), d_c.get(), d_d.get(), true, nullptr);
    const float got = d_d.read()[0];
    EXPECT_EQ(got, v.hopper) << v.feature << " (round to nearest would give " << v.nearest << ")";
  }
}

// A bf16 k16 and a tf32 k8 wgmma on one accumulator, fenced between (what
// interpret mode requires and the two *_bf16corr_wgmma candidates do), on
// exact inputs.
TEST(GpuInterpretKernels, WgmmaShapesChainedWithAFence) {
  KG_REQUIRE_SM90();
  const ExactGemmInputs bf16(64, 16, 64), tf32(64, 16, 64);
  const std::vector<float> want = bf16_then_tf32_product(bf16, tf32);
  DeviceVector<float> a16(bf16.a), b16(bf16.b), a8(tf32.a), b8(tf32.b), c(bf16.c),
      d(std::vector<float>(64 * 64, -1.0f));
  wgmma_bf16_then_tf32(a16.get(), b16.get(), a8.get(), b8.get(), c.get(), d.get(), true, nullptr);
  EXPECT_EQ(d.read(), want);
}

TEST(GpuInterpretKernels, AtomicsAndIndices) {
  KG_REQUIRE_GPU();
  DeviceVector<int> counters(std::vector<int>{0, -1, 1 << 30, 0, 0});
  DeviceVector<unsigned long long> wide(std::vector<unsigned long long>{0});
  DeviceVector<float> sum(std::vector<float>{0});
  atomics(counters.get(), wide.get(), sum.get(), 24, 64, nullptr);
  const auto c = counters.read();
  EXPECT_EQ(c[0], 24 * 64);
  EXPECT_EQ(c[1], 24 * 64 - 1);
  EXPECT_EQ(c[2], 0);
  EXPECT_EQ(c[4], 1);
  EXPECT_EQ(wide.read()[0], (24ull * 64) << 32);
  EXPECT_EQ(sum.read()[0], 0.5f * 24 * 64);

  DeviceVector<int> indices(std::vector<int>(24 * 12 * 12, -1));
  thread_indices(indices.get(), dim3(3, 2, 2), dim3(4, 3, 2), nullptr);
  const auto out = indices.read();
  const int* last = &out[(11 * 24 + 23) * 12];
  EXPECT_EQ(std::vector<int>(last, last + 12), (std::vector<int>{3, 2, 1, 2, 1, 1, 4, 3, 2, 3, 2, 2}));
}

}  // namespace
}  // namespace kg::test
