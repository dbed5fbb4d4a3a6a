// float64 reference of KernelBench level 1, problem 86: a depthwise
// nn.Conv2d(in, in, k, stride, padding, dilation, groups=in, bias=False)
// followed by a pointwise nn.Conv2d(in, out, 1, bias=False):
//   d[n, c, oh, ow] = sum_{kh, kw} x[n, c, oh*stride - padding + kh*dilation,
//                                       ow*stride - padding + kw*dilation] * dw[c, 0, kh, kw]
//   y[n, co, oh, ow] = sum_c d[n, c, oh, ow] * pw[co, c, 0, 0]
// The intermediate d stays in float64, as in a float64 PyTorch run.
#include <vector>

#include "kernelgate/detail/parallel.hpp"
#include "references.hpp"

namespace kg {

namespace {

struct Geometry {
  std::int64_t batch, in_channels, out_channels, kernel, height, width, stride, padding, dilation,
      height_out, width_out;

  explicit Geometry(const Axes& axes)
      : batch(axes.at("batch")),
        in_channels(axes.at("in_channels")),
        out_channels(axes.at("out_channels")),
        kernel(axes.at("kernel_size")),
        height(axes.at("height")),
        width(axes.at("width")),
        stride(axes.at("stride")),
        padding(axes.at("padding")),
        dilation(axes.at("dilation")),
        height_out((height + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1),
        width_out((width + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1) {}
};

double depthwise_at(const Geometry& g, const float* x, const float* dw, std::int64_t n,
                    std::int64_t c, std::int64_t oh, std::int64_t ow) {
  const float* x_plane = x + (n * g.in_channels + c) * g.height * g.width;
  const float* w_plane = dw + c * g.kernel * g.kernel;
  double sum = 0;
  for (std::int64_t kh = 0; kh < g.kernel; ++kh) {
    std::int64_t ih = oh * g.stride - g.padding + kh * g.dilation;
    if (ih < 0 || ih >= g.height) continue;
    for (std::int64_t kw = 0; kw < g.kernel; ++kw) {
      std::int64_t iw = ow * g.stride - g.padding + kw * g.dilation;
      if (iw < 0 || iw >= g.width) continue;
      sum += static_cast<double>(x_plane[ih * g.width + iw]) *
             static_cast<double>(w_plane[kh * g.kernel + kw]);
    }
  }
  return sum;
}

}  // namespace

WorkloadReference make_conv_depthwise_separable_2d_reference(const std::string& name) {
  WorkloadReference reference;
  reference.name = name;
  reference.full = [](const Axes& axes, const Tensors& inputs, HostTensor<double>& output) {
    Geometry g(axes);
    const float* x = inputs.at("x").data.data();
    const float* dw = inputs.at("depthwise_weight").data.data();
    const float* pw = inputs.at("pointwise_weight").data.data();
    double* y = output.data.data();
    // One output row (n, oh) at a time: its depthwise row for every channel,
    // then the pointwise product.
    parallel_for(g.batch * g.height_out, 1, [&](std::int64_t begin, std::int64_t end) {
      std::vector<double> depthwise(static_cast<std::size_t>(g.in_channels * g.width_out));
      for (std::int64_t row = begin; row < end; ++row) {
        std::int64_t n = row / g.height_out, oh = row % g.height_out;
        for (std::int64_t c = 0; c < g.in_channels; ++c)
          for (std::int64_t ow = 0; ow < g.width_out; ++ow)
            depthwise[c * g.width_out + ow] = depthwise_at(g, x, dw, n, c, oh, ow);
        for (std::int64_t co = 0; co < g.out_channels; ++co) {
          double* y_row = y + ((n * g.out_channels + co) * g.height_out + oh) * g.width_out;
          for (std::int64_t ow = 0; ow < g.width_out; ++ow) {
            double sum = 0;
            for (std::int64_t c = 0; c < g.in_channels; ++c)
              sum += depthwise[c * g.width_out + ow] * static_cast<double>(pw[co * g.in_channels + c]);
            y_row[ow] = sum;
          }
        }
      }
    });
  };
  reference.point = [](const Axes& axes, const Tensors& inputs, std::int64_t flat) {
    Geometry g(axes);
    std::int64_t ow = flat % g.width_out;
    std::int64_t oh = (flat / g.width_out) % g.height_out;
    std::int64_t co = (flat / (g.width_out * g.height_out)) % g.out_channels;
    std::int64_t n = flat / (g.width_out * g.height_out * g.out_channels);
    const float* x = inputs.at("x").data.data();
    const float* dw = inputs.at("depthwise_weight").data.data();
    const float* pw = inputs.at("pointwise_weight").data.data();
    double sum = 0;
    for (std::int64_t c = 0; c < g.in_channels; ++c)
      sum += depthwise_at(g, x, dw, n, c, oh, ow) * static_cast<double>(pw[co * g.in_channels + c]);
    return sum;
  };
  return reference;
}

}  // namespace kg
