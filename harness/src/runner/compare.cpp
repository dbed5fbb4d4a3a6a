// Equivalence of a candidate's output against the float64 reference, or of
// the whole output against the strict-FP32 GPU reference (docs/runner.md):
// max abs/rel error, relative L2, mismatches against the precision's
// tolerance, the share of the bounds used, and which KernelBench rule the
// output would pass.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/runner.hpp"

namespace kg {
namespace {

// torch.allclose(got, want, atol=tol, rtol=tol) for one element; NaN fails.
bool allclose_element(double got, double want, double tol) {
  if (!std::isfinite(got) || !std::isfinite(want)) return got == want;  // NaN != NaN
  return std::fabs(got - want) <= tol + tol * std::fabs(want);
}

// The statistics over `count` points; got(i) and want(i) give the values and
// index(i) the flat output index of point i (for the first mismatch).
template <typename Got, typename Want, typename Index>
ErrorStats accumulate(std::size_t count, Got got, Want want, Index index, const Tolerance& tolerance,
                      bool sampled) {
  ErrorStats stats;
  stats.checked = static_cast<std::int64_t>(count);
  stats.sampled = sampled;
  stats.kernelbench_1e2 = true;
  stats.kernelbench_1e4 = true;
  double diff_squares = 0;
  double want_squares = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double g = got(i);
    const double w = want(i);
    stats.kernelbench_1e2 = stats.kernelbench_1e2 && allclose_element(g, w, 1e-2);
    stats.kernelbench_1e4 = stats.kernelbench_1e4 && allclose_element(g, w, 1e-4);
    bool mismatch;
    if (!std::isfinite(g) && std::isfinite(w)) {
      stats.non_finite = true;
      mismatch = true;
    } else if (!std::isfinite(w)) {
      mismatch = !(g == w);  // a non-finite reference must be matched exactly
    } else {
      const double abs_error = std::fabs(g - w);
      const double rel_error = abs_error / std::max(std::fabs(w), std::numeric_limits<double>::min());
      if (abs_error > stats.max_abs) stats.max_abs = abs_error;
      if (w != 0 && rel_error > stats.max_rel) stats.max_rel = rel_error;
      diff_squares += abs_error * abs_error;
      want_squares += w * w;
      const double bound = tolerance.atol + tolerance.rtol * std::fabs(w);
      mismatch = abs_error > bound;
      const double fraction = bound > 0 ? abs_error / bound : (abs_error > 0 ? INFINITY : 0.0);
      stats.elementwise_fraction = std::max(stats.elementwise_fraction, fraction);
    }
    if (mismatch) {
      if (stats.mismatches == 0) {
        stats.first_mismatch_index = index(i);
        stats.first_mismatch_got = g;
        stats.first_mismatch_want = w;
      }
      if (stats.mismatch_indices.size() < kMaxLocatedMismatches) stats.mismatch_indices.push_back(index(i));
      ++stats.mismatches;
    }
  }
  // An all-zero reference makes the ratio meaningless: report the plain norm.
  stats.rel_l2 = want_squares > 0 ? std::sqrt(diff_squares / want_squares) : std::sqrt(diff_squares);
  stats.rel_l2_fraction = tolerance.rel_l2 > 0 ? stats.rel_l2 / tolerance.rel_l2 : 0.0;
  return stats;
}

}  // namespace

ErrorStats compare_to_reference(const std::vector<float>& got, const std::vector<double>& want,
                                const std::vector<std::int64_t>& want_index,
                                const Tolerance& tolerance, bool sampled) {
  if (got.size() != want.size() || want_index.size() != want.size())
    throw Error("compare_to_reference: got, want and index differ in length");
  return accumulate(
      want.size(), [&](std::size_t i) { return got[i]; }, [&](std::size_t i) { return want[i]; },
      [&](std::size_t i) { return want_index[i]; }, tolerance, sampled);
}

ErrorStats compare_whole_output(const std::vector<float>& got, const std::vector<float>& want,
                                const Tolerance& tolerance) {
  if (got.size() != want.size()) throw Error("compare_whole_output: got and want differ in length");
  return accumulate(
      want.size(), [&](std::size_t i) { return got[i]; }, [&](std::size_t i) { return want[i]; },
      [](std::size_t i) { return static_cast<std::int64_t>(i); }, tolerance, false);
}

double ErrorStats::headroom() const {
  if (non_finite) return 0;
  const double used = std::max(elementwise_fraction, rel_l2_fraction);
  return used > 0 ? 1 / used : std::numeric_limits<double>::infinity();
}

bool within_tolerance(const ErrorStats& stats, const Tolerance& tolerance) {
  if (stats.non_finite || stats.mismatches > 0) return false;
  // rel_l2 == 0 in the policy means "no L2 bound".
  return tolerance.rel_l2 <= 0 || stats.rel_l2 <= tolerance.rel_l2;
}

bool within_spot_tolerance(const ErrorStats& stats, const Tolerance& tolerance) {
  if (stats.non_finite || stats.mismatches > 0) return false;
  return tolerance.rel_l2 <= 0 || stats.rel_l2 <= kSpotRelL2Slack * tolerance.rel_l2;
}

}  // namespace kg
