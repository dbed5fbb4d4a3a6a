// The window taps a direct convolution loops over (kernels/common/
// window_taps.cuh) against testing every tap, over strides, paddings,
// dilations and kernels that put the window partly or wholly outside the
// input on either side.
#include <gtest/gtest.h>

#include <cstdint>

#include "common/window_taps.cuh"

namespace {

TEST(WindowTaps, ExactlyTheTapsInsideTheInput) {
  for (std::int64_t extent : {1, 4, 9})
    for (std::int64_t kernel : {1, 3, 5})
      for (std::int64_t stride : {1, 2, 3})
        for (std::int64_t padding : {0, 1, 4})
          for (std::int64_t dilation : {1, 2, 3})
            for (std::int64_t out = 0; out < 8; ++out) {
              const kg::kernels::Taps taps = kg::kernels::taps_inside(out, stride, padding, dilation, kernel, extent);
              for (std::int64_t tap = 0; tap < kernel; ++tap) {
                const std::int64_t at = out * stride - padding + tap * dilation;
                const bool inside = at >= 0 && at < extent;
                EXPECT_EQ(tap >= taps.first && tap < taps.last, inside)
                    << "tap " << tap << " of output " << out << ", extent " << extent << " kernel " << kernel
                    << " stride " << stride << " padding " << padding << " dilation " << dilation;
                if (inside) {
                  EXPECT_EQ(taps.position(tap, dilation), at);
                }
              }
            }
}

}  // namespace
