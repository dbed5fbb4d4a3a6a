// Where the mismatches of a comparison lie in the output tensor: the first
// one's coordinates, and what all of them share (docs/runner.md, "What is
// checked, in order"). A defect usually shows a shape: one channel wrong (a
// weight read from the wrong place), one row, or only the border (padding).
#include <algorithm>
#include <sstream>

#include "kernelgate/detail/runner.hpp"

namespace kg {
namespace {

// NCHW and its relatives, as PyTorch lays out the outputs; other ranks get
// numbered axes.
std::vector<std::string> axis_letters(std::size_t rank) {
  switch (rank) {
    case 3: return {"n", "c", "l"};
    case 4: return {"n", "c", "h", "w"};
    case 5: return {"n", "c", "d", "h", "w"};
    default: break;
  }
  std::vector<std::string> letters;
  for (std::size_t d = 0; d < rank; ++d) letters.push_back("i" + std::to_string(d));
  return letters;
}

std::vector<std::int64_t> unravel(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> at(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    at[d] = flat % shape[d];
    flat /= shape[d];
  }
  return at;
}

std::string coordinates(const std::vector<std::int64_t>& at, const std::vector<std::string>& letters) {
  std::string text = "(";
  for (std::size_t d = 0; d < at.size(); ++d) text += (d ? ", " : "") + letters[d] + "=" + std::to_string(at[d]);
  return text + ")";
}

bool inside(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::int64_t elements = 1;
  for (std::int64_t extent : shape) elements *= extent;
  return !shape.empty() && flat >= 0 && flat < elements;
}

}  // namespace

std::string describe_index(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  if (!inside(flat, shape)) return "flat index " + std::to_string(flat);
  return coordinates(unravel(flat, shape), axis_letters(shape.size())) + ", flat index " + std::to_string(flat);
}

std::string locate_mismatches(const ErrorStats& stats, const std::vector<std::int64_t>& shape) {
  if (stats.first_mismatch_index < 0) return "";
  std::string text = "first at " + describe_index(stats.first_mismatch_index, shape);
  if (!inside(stats.first_mismatch_index, shape)) return text;
  const std::vector<std::string> letters = axis_letters(shape.size());

  // A pattern needs a few mismatches to mean anything.
  const std::vector<std::int64_t>& located = stats.mismatch_indices;
  if (located.size() < 3) return text;
  std::vector<std::int64_t> first = unravel(located.front(), shape);
  std::vector<bool> shared(shape.size(), true);
  bool on_border = shape.size() >= 3;  // a spatial axis at its first or last index
  for (std::int64_t flat : located) {
    const std::vector<std::int64_t> at = unravel(flat, shape);
    for (std::size_t d = 0; d < shape.size(); ++d) shared[d] = shared[d] && at[d] == first[d];
    bool border = false;
    for (std::size_t d = 2; d < shape.size(); ++d) border = border || at[d] == 0 || at[d] == shape[d] - 1;
    on_border = on_border && border;
  }
  std::string common;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shared[d] && shape[d] > 1) common += (common.empty() ? "" : ", ") + letters[d] + "=" + std::to_string(first[d]);
  const std::string all = (std::int64_t(located.size()) < stats.mismatches ? "the first " : "all ") +
                          std::to_string(located.size()) + " mismatches";
  if (!common.empty()) return text + "; " + all + " share " + common;
  bool interior = false;  // a border only says something where there is an inside
  for (std::size_t d = 2; d < shape.size(); ++d) interior = interior || shape[d] > 2;
  if (on_border && interior) {
    std::string spatial;
    for (std::size_t d = 2; d < shape.size(); ++d) spatial += (d > 2 ? " or " : "") + letters[d];
    return text + "; " + all + " lie on the border (first or last " + spatial + ")";
  }
  return text;
}

}  // namespace kg
