#pragma once
// The axes every convolution workload names alike (the arguments of
// KernelBench's modules), and the planes of a 2-D one, read from a launch in
// one place for the direct candidates, whose shapes extend them with their own.
#include <cstdint>

#include "kernelgate/candidate.hpp"

namespace kg::kernels {

// Every convolution's: images, channels and the kernel's size, read from the
// axes alone so that a workspace size can be computed before a launch.
struct ConvChannels {
  std::int64_t batch, in_channels, out_channels, kernel;
};

inline void read_conv_channels(const Axes& axes, ConvChannels& channels) {
  channels.batch = axes.at("batch_size");
  channels.in_channels = axes.at("in_channels");
  channels.out_channels = axes.at("out_channels");
  channels.kernel = axes.at("kernel_size");
}

// A convolution whose module takes stride and padding.
struct ConvAxes : ConvChannels {
  std::int64_t stride, padding;
};

inline void read_conv_axes(const LaunchArgs& args, ConvAxes& axes) {
  read_conv_channels(args.axes, axes);
  axes.stride = args.axis("stride");
  axes.padding = args.axis("padding");
}

// A standard convolution's (nn.Conv2d, nn.Conv3d): dilation and groups too.
struct GroupedConvAxes : ConvAxes {
  std::int64_t dilation, groups;
};

inline void read_grouped_conv_axes(const LaunchArgs& args, GroupedConvAxes& axes) {
  read_conv_axes(args, axes);
  axes.dilation = args.axis("dilation");
  axes.groups = args.axis("groups");
}

// A 2-D convolution's planes: the input's extents from its axes (named
// height and width unless a suite names them otherwise), the output's from
// the suite's shape formula, not a copy of it.
struct ConvPlanes {
  std::int64_t height, width, height_out, width_out;
};

inline void read_conv_planes(const LaunchArgs& args, ConvPlanes& planes, const char* height = "height",
                             const char* width = "width") {
  planes.height = args.axis(height);
  planes.width = args.axis(width);
  planes.height_out = args.output_shape.at(2);
  planes.width_out = args.output_shape.at(3);
}

}  // namespace kg::kernels
