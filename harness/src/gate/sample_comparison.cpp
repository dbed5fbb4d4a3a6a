// compare_samples (sample_comparison.hpp): the Hodges-Lehmann shift of log
// latencies with its distribution-free (Mann-Whitney) confidence interval.
#include "kernelgate/detail/sample_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernelgate/detail/enum_names.hpp"

namespace kg {

namespace {

constexpr std::size_t kMinPerSide = 5;

std::vector<double> sorted_logs(const std::vector<double>& samples) {
  std::vector<double> logs = stored_samples(samples);
  for (double& value : logs) value = std::log(value);
  return logs;
}

// The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double low = 0.02425;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// The shift s with log(head) ~ log(base) + s: the median of every pairwise
// difference, and the interval between the order statistics the Mann-Whitney
// distribution (normal approximation) puts at the given level.
struct Shift {
  double estimate = 0, low = 0, high = 0;
};
Shift log_shift(const std::vector<double>& base, const std::vector<double>& head, double confidence) {
  std::vector<double> differences;
  differences.reserve(base.size() * head.size());
  for (double y : head)
    for (double x : base) differences.push_back(y - x);
  const std::size_t count = differences.size();
  const double n = double(base.size()), m = double(head.size());
  const double z = normal_quantile(0.5 + confidence / 2);
  const double half_width = z * std::sqrt(n * m * (n + m + 1) / 12.0);
  const std::size_t k = std::size_t(std::max(0.0, std::floor(double(count) / 2 - half_width)));
  auto at = [&](std::size_t index) {
    std::nth_element(differences.begin(), differences.begin() + std::ptrdiff_t(index), differences.end());
    return differences[index];
  };
  Shift shift;
  shift.estimate = count % 2 ? at(count / 2) : 0.5 * (at(count / 2 - 1) + at(count / 2));
  shift.low = at(k);
  shift.high = at(count - 1 - k);
  return shift;
}

}  // namespace

std::string_view to_string(SampleVerdict verdict) {
  constexpr EnumNames<SampleVerdict, 3> kVerdictNames{"verdict",
                                                      {{{SampleVerdict::passed, "passed"},
                                                        {SampleVerdict::regressed, "regressed"},
                                                        {SampleVerdict::inconclusive, "inconclusive"}}}};
  return kVerdictNames.name(verdict);
}

std::string describe_ratio(const SampleComparison& c, const std::string& whose, bool relative_to_eager) {
  char figures[160];
  std::snprintf(figures, sizeof figures, "typical latency %.3fx %s%s (99%% interval %.3fx to %.3fx)", c.ratio,
                whose.c_str(), relative_to_eager ? " relative to cudnn_eager" : "", c.ratio_low, c.ratio_high);
  return figures;
}

std::vector<double> stored_samples(const std::vector<double>& samples) {
  std::vector<double> kept;
  kept.reserve(samples.size());
  for (double sample : samples)
    if (sample > 0 && std::isfinite(sample)) kept.push_back(sample);
  std::sort(kept.begin(), kept.end());
  if (kept.size() <= kStoredSamples) return kept;
  std::vector<double> thinned(kStoredSamples);
  for (std::size_t i = 0; i < kStoredSamples; ++i)
    thinned[i] = kept[(2 * i + 1) * kept.size() / (2 * kStoredSamples)];
  return thinned;
}

SampleComparison compare_samples(const std::vector<double>& base, const std::vector<double>& head,
                                 const SampleComparisonPolicy& policy, const std::vector<double>& base_eager,
                                 const std::vector<double>& head_eager) {
  SampleComparison result;
  const auto b = sorted_logs(base), h = sorted_logs(head);
  if (b.size() < kMinPerSide || h.size() < kMinPerSide) return result;
  Shift shift = log_shift(b, h, policy.confidence);
  const auto be = sorted_logs(base_eager), he = sorted_logs(head_eager);
  if (be.size() >= kMinPerSide && he.size() >= kMinPerSide) {
    // Relative to eager: subtract eager's shift; the two intervals' half
    // widths add in quadrature (independent runs of two kernels).
    const Shift eager = log_shift(be, he, policy.confidence);
    const double estimate = shift.estimate - eager.estimate;
    const double below = std::hypot(shift.estimate - shift.low, eager.high - eager.estimate);
    const double above = std::hypot(shift.high - shift.estimate, eager.estimate - eager.low);
    shift = {estimate, estimate - below, estimate + above};
  }
  result.ratio = std::exp(shift.estimate);
  result.ratio_low = std::exp(shift.low);
  result.ratio_high = std::exp(shift.high);
  // Confidently under the tolerance passes, even when confidently slower
  // than the margin: the tolerance is what the suite allows.
  if (result.ratio_high < 1 + policy.tolerance)
    result.verdict = SampleVerdict::passed;
  else if (result.ratio_low > 1 + policy.detection_margin)
    result.verdict = SampleVerdict::regressed;
  else
    result.verdict = SampleVerdict::inconclusive;
  return result;
}

}  // namespace kg
