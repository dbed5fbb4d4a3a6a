// float64 reference of KernelBench level 2, problem 78:
// nn.ConvTranspose3d(in, out, k, stride, padding) (with bias) -> MaxPool3d(2)
// -> MaxPool3d(3) -> sum over channels (keepdim).
// The two pools (no padding, floor mode) compose into one max over the 6x6x6
// block [6j, 6j + 6) of the convolution output, so
//   y[n, 0, j] = sum_co max_{o in block j} (conv[n, co, o] + bias[co])
// and conv outputs past 6 * floor(extent / 6) are never read.
#include <algorithm>
#include <limits>
#include <vector>

#include "kernelgate/detail/parallel.hpp"
#include "references.hpp"

namespace kg {

namespace {

struct Tap {
  std::int64_t kernel_index;
  std::int64_t input_index;
};

struct Geometry {
  std::int64_t batch, in_channels, out_channels, kernel, stride, padding;
  std::int64_t in_extent[3];
  std::int64_t out_extent[3];  // pooled output

  explicit Geometry(const Axes& axes)
      : batch(axes.at("batch")),
        in_channels(axes.at("in_channels")),
        out_channels(axes.at("out_channels")),
        kernel(axes.at("kernel_size")),
        stride(axes.at("stride")),
        padding(axes.at("padding")),
        in_extent{axes.at("depth"), axes.at("height"), axes.at("width")} {
    for (int d = 0; d < 3; ++d)
      out_extent[d] = ((in_extent[d] - 1) * stride - 2 * padding + kernel) / 6;
  }

  // The (kernel tap, input index) pairs that write convolution output o of dimension d.
  std::vector<Tap> taps(int d, std::int64_t o) const {
    std::vector<Tap> found;
    for (std::int64_t k = 0; k < kernel; ++k) {
      std::int64_t t = o + padding - k;
      if (t < 0 || t % stride != 0) continue;
      if (t / stride < in_extent[d]) found.push_back({k, t / stride});
    }
    return found;
  }
};

double output_at(const Geometry& g, const float* x, const float* weight, const float* bias,
                 std::int64_t n, const std::int64_t block[3]) {
  // Taps of the 6 convolution outputs of the block in each dimension.
  std::vector<Tap> taps[3][6];
  for (int d = 0; d < 3; ++d)
    for (int i = 0; i < 6; ++i) taps[d][i] = g.taps(d, 6 * block[d] + i);
  const std::int64_t plane = g.in_extent[0] * g.in_extent[1] * g.in_extent[2];
  const std::int64_t k3 = g.kernel * g.kernel * g.kernel;
  double total = 0;
  for (std::int64_t co = 0; co < g.out_channels; ++co) {
    double best = -std::numeric_limits<double>::infinity();
    for (int a = 0; a < 6; ++a)
      for (int b = 0; b < 6; ++b)
        for (int c = 0; c < 6; ++c) {
          double sum = 0;
          for (std::int64_t ci = 0; ci < g.in_channels; ++ci) {
            const float* x_volume = x + (n * g.in_channels + ci) * plane;
            const float* w_volume = weight + (ci * g.out_channels + co) * k3;
            for (const Tap& td : taps[0][a])
              for (const Tap& th : taps[1][b])
                for (const Tap& tw : taps[2][c])
                  sum += static_cast<double>(
                             x_volume[(td.input_index * g.in_extent[1] + th.input_index) *
                                          g.in_extent[2] +
                                      tw.input_index]) *
                         static_cast<double>(
                             w_volume[(td.kernel_index * g.kernel + th.kernel_index) * g.kernel +
                                      tw.kernel_index]);
          }
          best = std::max(best, sum + static_cast<double>(bias[co]));
        }
    total += best;
  }
  return total;
}

double output_at_flat(const Geometry& g, const Tensors& inputs, std::int64_t flat) {
  std::int64_t block[3];
  block[2] = flat % g.out_extent[2];
  block[1] = (flat / g.out_extent[2]) % g.out_extent[1];
  block[0] = (flat / (g.out_extent[2] * g.out_extent[1])) % g.out_extent[0];
  std::int64_t n = flat / (g.out_extent[2] * g.out_extent[1] * g.out_extent[0]);
  return output_at(g, inputs.at("x").data.data(), inputs.at("weight").data.data(),
                   inputs.at("bias").data.data(), n, block);
}

}  // namespace

WorkloadReference make_conv_transpose3d_max_max_sum_reference(const std::string& name) {
  WorkloadReference reference;
  reference.name = name;
  reference.full = [](const Axes& axes, const Tensors& inputs, HostTensor<double>& output) {
    Geometry g(axes);
    double* y = output.data.data();
    parallel_for(output.numel(), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) y[i] = output_at_flat(g, inputs, i);
    });
  };
  reference.point = [](const Axes& axes, const Tensors& inputs, std::int64_t flat) {
    return output_at_flat(Geometry(axes), inputs, flat);
  };
  return reference;
}

}  // namespace kg
