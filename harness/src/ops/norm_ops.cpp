// Normalisations: layer, batch (training mode, as KernelBench runs its
// modules), instance and group norm. Each splits x into groups of elements,
// takes each group's mean and biased variance, and maps an element to
// (x - mean) / sqrt(var + eps) * weight + bias, weight and bias optional.
// What tells the four apart is only how the groups are cut, per dimension:
//   layer_norm     leading dims kept, the normalized_shape's trailing dims reduced
//   batch_norm     channel kept, batch and space reduced
//   instance_norm  batch and channel kept, space reduced
//   group_norm     batch kept, channels in blocks of C / num_groups, space reduced
#include <cmath>

#include "op_families.hpp"

namespace kg::ops::detail {

namespace {

enum class Role { kept, reduced, blocked };

struct Grouping {
  std::vector<Role> roles;  // per dimension of x
  std::int64_t block = 1;   // the extent of a blocked dimension's groups
};

Grouping layer_norm_grouping(const Op& op, const Shape& x) {
  const std::size_t k = op.normalized_shape.size();
  if (k == 0 || k > x.size()) fail(op, "normalized_shape needs 1 to " + std::to_string(x.size()) + " extents");
  if (!std::equal(op.normalized_shape.begin(), op.normalized_shape.end(), x.end() - static_cast<std::ptrdiff_t>(k)))
    fail(op, "normalized_shape " + describe(op.normalized_shape) + " is not the trailing shape of " + describe(x));
  Grouping g{std::vector<Role>(x.size(), Role::kept)};
  for (std::size_t d = x.size() - k; d < x.size(); ++d) g.roles[d] = Role::reduced;
  return g;
}

Grouping grouping_of(const Op& op, const Shape& x) {
  if (op.kind == OpKind::layer_norm) return layer_norm_grouping(op, x);
  const std::size_t fewest = op.kind == OpKind::instance_norm ? 3 : 2;
  if (x.size() < fewest) fail(op, "x " + describe(x) + " needs rank " + std::to_string(fewest) + " or more");
  Grouping g{std::vector<Role>(x.size(), Role::reduced)};
  g.roles[1] = Role::kept;
  if (op.kind == OpKind::instance_norm) g.roles[0] = Role::kept;
  if (op.kind == OpKind::group_norm) {
    if (op.num_groups < 1 || x[1] % op.num_groups != 0)
      fail(op, "channels " + std::to_string(x[1]) + " are not divisible by num_groups " +
                   std::to_string(op.num_groups));
    g.roles[0] = Role::kept;
    g.roles[1] = Role::blocked;
    g.block = x[1] / op.num_groups;
  }
  return g;
}

// The shape weight and bias must have: the normalized shape, or [C].
Shape affine_shape(const Op& op, const Shape& x) {
  return op.kind == OpKind::layer_norm ? op.normalized_shape : Shape{x[1]};
}

// The groups a box of x touches, as a box of group coordinates (a reduced
// dimension has one).
Box groups_of(const Grouping& g, const Box& box) {
  Box groups = box;
  for (std::size_t d = 0; d < g.roles.size(); ++d) {
    if (g.roles[d] == Role::reduced) {
      groups.lo[d] = 0;
      groups.hi[d] = 1;
    } else if (g.roles[d] == Role::blocked) {
      groups.lo[d] = box.lo[d] / g.block;
      groups.hi[d] = (box.hi[d] - 1) / g.block + 1;
    }
  }
  return groups;
}

// The elements of x in the group at `group` (coordinates as groups_of gives).
Box members_of(const Grouping& g, const Shape& x, const std::int64_t* group) {
  Box members = Box::whole(x);
  for (std::size_t d = 0; d < g.roles.size(); ++d) {
    if (g.roles[d] == Role::kept) {
      members.lo[d] = group[d];
      members.hi[d] = group[d] + 1;
    } else if (g.roles[d] == Role::blocked) {
      members.lo[d] = group[d] * g.block;
      members.hi[d] = (group[d] + 1) * g.block;
    }
  }
  return members;
}

struct Moments {
  double mean = 0, variance = 0;
};

// Mean, then the biased variance about it, each summed in row-major order.
Moments moments_of(const Region& x, const Box& members) {
  std::vector<std::int64_t> index(members.lo.size());
  const std::int64_t count = members.numel();
  Moments m;
  for (std::int64_t i = 0; i < count; ++i) {
    unravel(members, i, index.data());
    m.mean += x.at(index.data());
  }
  m.mean /= static_cast<double>(count);
  for (std::int64_t i = 0; i < count; ++i) {
    unravel(members, i, index.data());
    const double deviation = x.at(index.data()) - m.mean;
    m.variance += deviation * deviation;
  }
  m.variance /= static_cast<double>(count);
  return m;
}

// The intersection of two boxes (empty where they do not meet).
Box intersection(const Box& a, const Box& b) {
  Box both = a;
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    both.lo[d] = std::max(a.lo[d], b.lo[d]);
    both.hi[d] = std::max(both.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return both;
}


bool is_norm_op(OpKind kind) {
  return kind == OpKind::layer_norm || kind == OpKind::batch_norm || kind == OpKind::instance_norm ||
         kind == OpKind::group_norm;
}

Shape norm_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  const Shape& x = inputs[0];
  grouping_of(op, x);
  for (std::size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i] != affine_shape(op, x))
      fail(op, std::string(i == 1 ? "weight " : "bias ") + describe(inputs[i]) + " is not " +
                   describe(affine_shape(op, x)));
  if (!(op.scalar("eps") >= 0)) fail(op, "eps is negative");
  return x;
}

std::vector<Box> norm_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  const Grouping g = grouping_of(op, inputs[0]);
  // The whole of every group the box touches; weight and bias whole.
  Box x = groups_of(g, out);
  for (std::size_t d = 0; d < g.roles.size(); ++d) {
    x.lo[d] = g.roles[d] == Role::reduced ? 0 : g.roles[d] == Role::blocked ? x.lo[d] * g.block : out.lo[d];
    x.hi[d] = g.roles[d] == Role::reduced ? inputs[0][d] : g.roles[d] == Role::blocked ? x.hi[d] * g.block : out.hi[d];
  }
  std::vector<Box> boxes{x};
  for (std::size_t i = 1; i < inputs.size(); ++i) boxes.push_back(Box::whole(inputs[i]));
  return boxes;
}

void norm_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                   Region& out) {
  const Shape& shape = shapes[0];
  const Grouping g = grouping_of(op, shape);
  const double eps = op.scalar("eps");
  const std::size_t affine_from = op.kind == OpKind::layer_norm ? shape.size() - op.normalized_shape.size() : 1;
  const auto affine = [&](std::size_t operand, const std::int64_t* index, double otherwise) {
    if (inputs.size() <= operand) return otherwise;
    const std::int64_t* at = index + affine_from;  // layer_norm: the trailing coordinates; else the channel
    return inputs[operand]->at(at);
  };
  for_each_element(groups_of(g, out.box), [&](std::int64_t, const std::int64_t* group) {
    const Box members = members_of(g, shape, group);
    const Moments m = moments_of(*inputs[0], members);
    const double inverse_deviation = 1.0 / std::sqrt(m.variance + eps);
    const Box wanted = intersection(members, out.box);
    std::vector<std::int64_t> index(shape.size());
    for (std::int64_t i = 0; i < wanted.numel(); ++i) {
      unravel(wanted, i, index.data());
      const double normalised = (inputs[0]->at(index.data()) - m.mean) * inverse_deviation;
      out.data[static_cast<std::size_t>(out.offset(index.data()))] =
          normalised * affine(1, index.data(), 1.0) + affine(2, index.data(), 0.0);
    }
  });
}

double norm_flops(const Op& op, const std::vector<Shape>& inputs) {
  norm_output_shape(op, inputs);
  double elements = 1;
  for (std::int64_t extent : inputs[0]) elements *= static_cast<double>(extent);
  return 5 * elements;
}

}  // namespace

const OpFamily kNormOps{is_norm_op, norm_output_shape, norm_input_boxes, norm_evaluate, norm_flops};

}  // namespace kg::ops::detail
