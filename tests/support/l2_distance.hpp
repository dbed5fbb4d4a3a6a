#pragma once
// The golden tests' measure of agreement: the L2 norm of the difference of
// two equally long series beside the L2 norm of the expected one. Shared by
// the op tests (tests/ops) and the workload tests (tests/suite).
#include <cmath>
#include <cstddef>

namespace kg::test_support {

struct L2Distance {
  double difference = 0;  // ||got - want||_2
  double reference = 0;   // ||want||_2
  double relative() const { return difference / reference; }
};

template <class Got, class Want>
L2Distance l2_distance(const Got& got, const Want& want) {
  double difference = 0, reference = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    difference += (got[i] - want[i]) * (got[i] - want[i]);
    reference += want[i] * want[i];
  }
  return {std::sqrt(difference), std::sqrt(reference)};
}

}  // namespace kg::test_support
