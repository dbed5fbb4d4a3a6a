// The always-runnable baseline: Conv2d (with bias, stride 1, no padding),
// AvgPool2d(pool), sigmoid, and the sum of each image's values, straight from
// the definition, FP32. Slow on purpose: it is the obviously correct
// candidate faster ones are compared with.
//
// conv[n, o, r, q]   = bias[o] + sum over c, i, j of x[n, c, r + i, q + j] * weight[o, c, i, j]
// pooled[n, o, a, b] = mean of conv[n, o, a*pool .. a*pool + pool - 1, b*pool .. b*pool + pool - 1]
//                      (floor mode: conv rows and columns past the last whole pool are not read)
// y[n]               = sum over o, a, b of sigmoid(pooled[n, o, a, b])
//
// Two kernels: one thread per pooled value writes its sigmoid to the
// workspace; then one block per image sums that image's values, each thread
// a strided share in index order and the block's shares by a fixed tree, so
// the float sum does not depend on the grid. One thread per image for the
// whole chain would be 128 threads each doing 1.3 GFLOP at KernelBench's sizes.
#include <cmath>
#include <cstdint>

#include "common/conv_axes.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

constexpr unsigned kSumThreads = 256;

struct Shape : kg::kernels::ConvChannels {
  std::int64_t pool, height, width, pooled_height, pooled_width;
  __host__ __device__ std::int64_t pooled_per_image() const { return out_channels * pooled_height * pooled_width; }
};

Shape shape_of(const kg::Axes& axes) {
  Shape s{};
  kg::kernels::read_conv_channels(axes, s);
  s.pool = axes.at("pool_kernel_size");
  s.height = axes.at("height");
  s.width = axes.at("width");
  s.pooled_height = (s.height - s.kernel + 1) / s.pool;
  s.pooled_width = (s.width - s.kernel + 1) / s.pool;
  return s;
}

// Workspace: the sigmoid of every pooled value.
std::size_t workspace_bytes(const kg::Axes& axes) {
  const Shape s = shape_of(axes);
  return static_cast<std::size_t>(s.batch * s.pooled_per_image()) * sizeof(float);
}

__global__ void conv_pool_sigmoid_direct(Shape s, const float* __restrict__ x, const float* __restrict__ weight,
                                         const float* __restrict__ bias, float* __restrict__ activated) {
  for (const std::int64_t index : kg::grid_stride(s.batch * s.pooled_per_image())) {
    const auto [n, o, a, b] = kg::unravel(index, s.batch, s.out_channels, s.pooled_height, s.pooled_width);
    float window_sum = 0.0f;
    for (std::int64_t r = a * s.pool; r < (a + 1) * s.pool; ++r)
      for (std::int64_t q = b * s.pool; q < (b + 1) * s.pool; ++q) {
        float conv = 0.0f;
        for (std::int64_t c = 0; c < s.in_channels; ++c) {
          const float* plane = x + (n * s.in_channels + c) * s.height * s.width;
          const float* filter = weight + (o * s.in_channels + c) * s.kernel * s.kernel;
          for (std::int64_t i = 0; i < s.kernel; ++i)
            for (std::int64_t j = 0; j < s.kernel; ++j)
              conv += plane[(r + i) * s.width + q + j] * filter[i * s.kernel + j];
        }
        window_sum += conv + bias[o];
      }
    const float mean = window_sum / static_cast<float>(s.pool * s.pool);
    activated[index] = 1.0f / (1.0f + expf(-mean));
  }
}

// y[n] = the sum of image n's activated values; one block per image.
__global__ void image_sum_direct(Shape s, const float* __restrict__ activated, float* __restrict__ y) {
  __shared__ float shares[kSumThreads];
  const std::int64_t count = s.pooled_per_image();
  for (std::int64_t n = blockIdx.x; n < s.batch; n += gridDim.x) {
    const float* image = activated + n * count;
    float share = 0.0f;
    for (std::int64_t e = threadIdx.x; e < count; e += blockDim.x) share += image[e];
    shares[threadIdx.x] = share;
    __syncthreads();
    for (unsigned half = kSumThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) shares[threadIdx.x] += shares[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) y[n] = shares[0];
    __syncthreads();  // shares is rewritten for the next image
  }
}

void launch(const kg::LaunchArgs& args) {
  const Shape s = shape_of(args.axes);
  const std::int64_t pooled = s.batch * s.pooled_per_image();
  float* activated = args.workspace_floats(pooled, "pooled values");
  kg::launch_grid_stride(conv_pool_sigmoid_direct, pooled, 128, args.stream, s, args.in("x"), args.in("weight"),
                         args.in("bias"), activated);
  const unsigned images = static_cast<unsigned>(s.batch < 65535 ? s.batch : 65535);
  kg::launch(image_sum_direct, dim3(images), dim3(kSumThreads), 0, args.stream, s,
             static_cast<const float*>(activated), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "Conv2d, AvgPool2d and sigmoid from the definition, one thread per pooled value, then one "
               "block per image sums them, FP32",
    .workspace_bytes = workspace_bytes,
    .launch = launch,
});

}  // namespace
