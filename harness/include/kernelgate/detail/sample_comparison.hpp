#pragma once
// A latency comparison with three answers, from the raw samples of two runs
// (the stored one and this one) instead of their means and standard
// deviations: a mean and a std move with every outlier, and a large std
// hides a large slowdown. Method and measured error rates:
// docs/gate-statistics.md.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kg {

enum class SampleVerdict {
  passed,        // confidently slower by less than the tolerance (or faster)
  regressed,     // not that, and confidently slower than the detection margin
  inconclusive,  // the samples cannot tell: time again
};
std::string_view to_string(SampleVerdict verdict);

struct SampleComparison {
  // head / base as a ratio of typical latencies (the Hodges-Lehmann shift of
  // the log latencies), and its confidence interval.
  double ratio = 1;
  double ratio_low = 1;
  double ratio_high = 1;
  SampleVerdict verdict = SampleVerdict::inconclusive;
};

struct SampleComparisonPolicy {
  double tolerance = 0.05;   // a slowdown up to this passes
  // A slowdown must be confidently above this to regress: below the
  // tolerance, so that a slowdown of `tolerance` itself is caught.
  double detection_margin = 0.025;
  double confidence = 0.99;  // two-sided level of each interval
};

// Beyond this many samples a side is thinned to evenly spaced order
// statistics before it is compared: the pairwise differences stay few, and
// the interval, computed for the thinned count, only gets wider. A stored
// record keeps exactly these, so it loses nothing its comparison uses.
inline constexpr std::size_t kStoredSamples = 512;

// The samples a comparison uses: the finite ones above 0, sorted, thinned to
// at most kStoredSamples order statistics.
std::vector<double> stored_samples(const std::vector<double>& samples);

// "typical latency 1.104x <whose> [relative to cudnn_eager] (99% interval
// 1.081x to 1.127x)": a comparison in words, for messages.
std::string describe_ratio(const SampleComparison& comparison, const std::string& whose, bool relative_to_eager);

// Compares head against base. With the cudnn_eager samples of both runs the
// comparison is of the ratios to eager, which a machine that is faster or
// slower as a whole (clocks, a neighbour) moves together; their uncertainty
// widens the interval. Samples are milliseconds (or cycles), all > 0; at least
// 5 per side, else the verdict is inconclusive. Deterministic.
SampleComparison compare_samples(const std::vector<double>& base, const std::vector<double>& head,
                                 const SampleComparisonPolicy& policy,
                                 const std::vector<double>& base_eager = {},
                                 const std::vector<double>& head_eager = {});

}  // namespace kg
