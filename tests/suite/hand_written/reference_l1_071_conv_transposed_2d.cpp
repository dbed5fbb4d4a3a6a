// float64 reference of nn.ConvTranspose2d(in, out, k, stride, padding,
// output_padding, groups, bias=False) (KernelBench level 1, problem 71),
// computed per output element as a gather over the input:
//   y[n, co, oh, ow] = sum over ci in co's group, kh, kw with
//                      oh = ih * stride - padding + kh (same for w)
//                      of x[n, ci, ih, iw] * weight[ci, co % (out / groups), kh, kw].
#include "kernelgate/detail/parallel.hpp"
#include "references.hpp"

namespace kg {

namespace {

struct Geometry {
  std::int64_t batch, in_channels, out_channels, kernel, height_in, width_in, stride, padding,
      output_padding, groups, height_out, width_out, in_per_group, out_per_group;

  explicit Geometry(const Axes& axes)
      : batch(axes.at("batch")),
        in_channels(axes.at("in_channels")),
        out_channels(axes.at("out_channels")),
        kernel(axes.at("kernel_size")),
        height_in(axes.at("height_in")),
        width_in(axes.at("width_in")),
        stride(axes.at("stride")),
        padding(axes.at("padding")),
        output_padding(axes.at("output_padding")),
        groups(axes.at("groups")),
        height_out((height_in - 1) * stride - 2 * padding + kernel + output_padding),
        width_out((width_in - 1) * stride - 2 * padding + kernel + output_padding),
        in_per_group(in_channels / groups),
        out_per_group(out_channels / groups) {}
};

double output_at(const Geometry& g, const float* x, const float* weight, std::int64_t n,
                 std::int64_t co, std::int64_t oh, std::int64_t ow) {
  std::int64_t group = co / g.out_per_group;
  std::int64_t co_in_group = co % g.out_per_group;
  double sum = 0;
  for (std::int64_t ci = group * g.in_per_group; ci < (group + 1) * g.in_per_group; ++ci) {
    const float* x_plane = x + (n * g.in_channels + ci) * g.height_in * g.width_in;
    const float* w_plane = weight + (ci * g.out_per_group + co_in_group) * g.kernel * g.kernel;
    for (std::int64_t kh = 0; kh < g.kernel; ++kh) {
      std::int64_t th = oh + g.padding - kh;
      if (th < 0 || th % g.stride != 0) continue;
      std::int64_t ih = th / g.stride;
      if (ih >= g.height_in) continue;
      for (std::int64_t kw = 0; kw < g.kernel; ++kw) {
        std::int64_t tw = ow + g.padding - kw;
        if (tw < 0 || tw % g.stride != 0) continue;
        std::int64_t iw = tw / g.stride;
        if (iw >= g.width_in) continue;
        sum += static_cast<double>(x_plane[ih * g.width_in + iw]) *
               static_cast<double>(w_plane[kh * g.kernel + kw]);
      }
    }
  }
  return sum;
}

}  // namespace

WorkloadReference make_conv_transposed_2d_reference(const std::string& name) {
  WorkloadReference reference;
  reference.name = name;
  reference.full = [](const Axes& axes, const Tensors& inputs, HostTensor<double>& output) {
    Geometry g(axes);
    const float* x = inputs.at("x").data.data();
    const float* weight = inputs.at("weight").data.data();
    double* y = output.data.data();
    std::int64_t rows = g.batch * g.out_channels * g.height_out;
    parallel_for(rows, 8, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t row = begin; row < end; ++row) {
        std::int64_t oh = row % g.height_out;
        std::int64_t co = (row / g.height_out) % g.out_channels;
        std::int64_t n = row / (g.height_out * g.out_channels);
        for (std::int64_t ow = 0; ow < g.width_out; ++ow)
          y[row * g.width_out + ow] = output_at(g, x, weight, n, co, oh, ow);
      }
    });
  };
  reference.point = [](const Axes& axes, const Tensors& inputs, std::int64_t flat) {
    Geometry g(axes);
    std::int64_t ow = flat % g.width_out;
    std::int64_t oh = (flat / g.width_out) % g.height_out;
    std::int64_t co = (flat / (g.width_out * g.height_out)) % g.out_channels;
    std::int64_t n = flat / (g.width_out * g.height_out * g.out_channels);
    return output_at(g, inputs.at("x").data.data(), inputs.at("weight").data.data(), n, co, oh, ow);
  };
  return reference;
}

}  // namespace kg
