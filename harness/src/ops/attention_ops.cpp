// Scaled dot-product attention as F.scaled_dot_product_attention computes
// it without a mask, dropout or a scale of its own: softmax(q k^T /
// sqrt(E)) v over the last two dims of q [..., L, E], k [..., S, E] and
// v [..., S, Ev], the leading dims a batch the three share.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "op_families.hpp"

namespace kg::ops::detail {

namespace {

bool is_attention(OpKind kind) { return kind == OpKind::attention; }

Shape attention_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  const Shape &q = inputs[0], &k = inputs[1], &v = inputs[2];
  const std::string operands = describe(q) + ", " + describe(k) + ", " + describe(v);
  if (q.size() < 2 || k.size() != q.size() || v.size() != q.size())
    fail(op, "q, k and v need one rank of 2 or more, got " + operands);
  for (std::size_t d = 0; d + 2 < q.size(); ++d)
    if (k[d] != q[d] || v[d] != q[d]) fail(op, "q, k and v differ in their batch dimensions: " + operands);
  if (k.back() != q.back()) fail(op, "k's last extent is not q's (the embedding): " + operands);
  if (v[v.size() - 2] != k[k.size() - 2]) fail(op, "v does not have k's sequence length: " + operands);
  Shape shape = q;
  shape.back() = v.back();
  return shape;
}

// An output element reads its row of q, every key of its batch entry and
// its column of every value.
std::vector<Box> attention_input_boxes(const Op&, const std::vector<Shape>& inputs, const Box& out) {
  const std::size_t last = out.lo.size() - 1;
  Box q = out, k = Box::whole(inputs[1]), v = Box::whole(inputs[2]);
  q.lo[last] = 0;
  q.hi[last] = inputs[0].back();
  for (std::size_t d = 0; d + 2 <= last; ++d) {
    k.lo[d] = v.lo[d] = out.lo[d];
    k.hi[d] = v.hi[d] = out.hi[d];
  }
  v.lo[last] = out.lo[last];
  v.hi[last] = out.hi[last];
  return {q, k, v};
}

// Each element from its row's scores, shifted by their maximum; the
// weighted sum of the values divided by the sum of the weights once.
void attention_evaluate(const Op&, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                        Region& out) {
  const std::size_t rank = out.box.lo.size(), last = rank - 1, row = rank - 2;
  const std::int64_t embedding = shapes[0].back(), keys = shapes[1][row];
  const double scale = 1.0 / std::sqrt(static_cast<double>(embedding));
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    std::vector<std::int64_t> qi(index, index + rank), ki(index, index + rank), vi(index, index + rank);
    std::vector<double> scores(static_cast<std::size_t>(keys));
    double top = -std::numeric_limits<double>::infinity();
    for (std::int64_t t = 0; t < keys; ++t) {
      ki[row] = t;
      double dot = 0;
      for (std::int64_t e = 0; e < embedding; ++e) {
        qi[last] = ki[last] = e;
        dot += inputs[0]->at(qi.data()) * inputs[1]->at(ki.data());
      }
      scores[static_cast<std::size_t>(t)] = dot * scale;
      top = std::max(top, dot * scale);
    }
    double weights = 0, weighted = 0;
    for (std::int64_t t = 0; t < keys; ++t) {
      const double weight = std::exp(scores[static_cast<std::size_t>(t)] - top);
      vi[row] = t;
      weights += weight;
      weighted += weight * inputs[2]->at(vi.data());
    }
    out.data[static_cast<std::size_t>(flat)] = weighted / weights;
  });
}

// 2 L S E for the scores, 3 L S for their softmax, 2 L S Ev for the values,
// per batch entry.
double attention_flops(const Op& op, const std::vector<Shape>& inputs) {
  const Shape out = attention_output_shape(op, inputs);
  double batch = 1;
  for (std::size_t d = 0; d + 2 < out.size(); ++d) batch *= static_cast<double>(out[d]);
  const double rows = static_cast<double>(out[out.size() - 2]), keys = static_cast<double>(inputs[1][out.size() - 2]);
  const double embedding = static_cast<double>(inputs[0].back()), values = static_cast<double>(out.back());
  return batch * rows * keys * (2 * embedding + 3 + 2 * values);
}

}  // namespace

const OpFamily kAttentionOps{is_attention, attention_output_shape, attention_input_boxes, attention_evaluate,
                             attention_flops};

}  // namespace kg::ops::detail
