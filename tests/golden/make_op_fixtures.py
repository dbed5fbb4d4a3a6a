#!/usr/bin/env python3
"""Builds tests/golden/op_fixtures: every op of kernelgate's float64 op library
(docs/ops.md) run by torch in float64 on small signed inputs, at non-default
geometry. tests/ops/ops_golden_test.cpp evaluates the same ops and compares.

    build/golden-venv/bin/python tests/golden/make_op_fixtures.py
"""
import argparse
import json
import pathlib
import shutil

import numpy as np
import torch

from torch_ops import apply

HERE = pathlib.Path(__file__).resolve().parent

# (name, op, attributes, operand shapes[, draw]). Inputs are N(0, 1.5^2), so
# that relu, clamp and the signs of every op are exercised; a draw names
# another distribution where the op's domain or its interesting range asks
# for one (DRAWS).
CASES = [
    ("conv1d_stride2_pad1_dilation2_groups2_bias", "conv",
     {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, [[2, 4, 11], [6, 2, 3], [6]]),
    ("conv2d_asymmetric_bias", "conv", {"stride": [2, 1], "padding": [1, 0]}, [[1, 3, 7, 6], [4, 3, 3, 2], [4]]),
    ("conv3d_dilated", "conv", {"padding": [0, 1, 1], "dilation": [1, 1, 2]}, [[1, 2, 5, 4, 6], [3, 2, 2, 3, 2]]),
    ("conv_transpose1d_stride3_outpad2_groups2_bias", "conv_transpose",
     {"stride": 3, "padding": 1, "output_padding": 2, "groups": 2}, [[2, 4, 5], [4, 3, 3], [6]]),
    ("conv_transpose2d_dilated", "conv_transpose",
     {"stride": 2, "padding": [1, 0], "dilation": [2, 1], "output_padding": [1, 0]}, [[1, 2, 4, 5], [2, 3, 3, 2]]),
    ("conv_transpose3d_stride2", "conv_transpose", {"stride": [2, 1, 2], "padding": 1},
     [[1, 2, 3, 4, 3], [2, 2, 3, 2, 3]]),
    ("max_pool1d_default_stride", "max_pool", {"kernel": 4}, [[1, 2, 10]]),
    ("max_pool2d_padded_dilated", "max_pool",
     {"kernel": [3, 2], "stride": [2, 2], "padding": [1, 1], "dilation": [1, 2]}, [[2, 3, 9, 8]]),
    ("max_pool3d", "max_pool", {"kernel": 2, "stride": [1, 2, 2]}, [[1, 2, 4, 5, 6]]),
    ("avg_pool2d_padded", "avg_pool", {"kernel": 3, "stride": 2, "padding": 1}, [[2, 2, 7, 9]]),
    ("avg_pool3d_padding_not_counted", "avg_pool",
     {"kernel": [2, 3, 2], "stride": [1, 2, 2], "padding": [1, 1, 0], "count_include_pad": False}, [[1, 2, 5, 6, 4]]),
    ("sum_two_dims", "sum", {"dims": [1, 3]}, [[2, 3, 4, 5]]),
    ("mean_last_keepdim", "mean", {"dims": [-1], "keepdim": True}, [[2, 3, 7]]),
    ("max_two_dims_keepdim", "max", {"dims": [0, 2], "keepdim": True}, [[3, 2, 4, 2]]),
    ("add_bias_broadcast", "add", {}, [[2, 3, 4, 5], [3, 1, 1]]),
    ("subtract_row", "subtract", {}, [[2, 3, 4], [4]]),
    ("multiply_both_broadcast", "multiply", {}, [[2, 1, 4], [3, 1]]),
    ("relu", "relu", {}, [[3, 17]]),
    ("gelu", "gelu", {}, [[3, 17]]),
    ("sigmoid", "sigmoid", {}, [[3, 17]]),
    ("tanh", "tanh", {}, [[3, 17]]),
    ("clamp", "clamp", {"low": -0.5, "high": 0.7}, [[3, 17]]),
    ("scale", "scale", {"value": 2.5}, [[3, 17]]),
    ("matmul", "matmul", {}, [[5, 7], [7, 3]]),
    ("matmul_batched", "matmul", {}, [[2, 4, 6], [2, 6, 3]]),
    ("matmul_batched_lhs", "matmul", {}, [[2, 4, 6], [6, 3]]),
]

# The ops added after the first fixtures, kept after them so that the earlier
# cases draw the same operands as before.
CASES += [
    ("min_two_dims", "min", {"dims": [0, -1]}, [[3, 4, 5]]),
    ("prod_keepdim", "prod", {"dims": [1], "keepdim": True}, [[3, 4, 2]], "near_one"),
    ("logsumexp_two_dims_keepdim", "logsumexp", {"dims": [1, 2], "keepdim": True}, [[2, 3, 4, 5]]),
    ("softmax_middle_dim", "softmax", {"dim": 1}, [[2, 7, 3]]),
    ("log_softmax_last_dim", "log_softmax", {"dim": -1}, [[3, 2, 9]]),
    ("divide_by_column", "divide", {}, [[3, 5], [3, 1]], "away_from_zero"),
    ("gelu_tanh", "gelu_tanh", {}, [[3, 17]]),
    ("leaky_relu_slope", "leaky_relu", {"negative_slope": 0.2}, [[3, 17]]),
    ("elu_alpha", "elu", {"alpha": 0.7}, [[3, 17]]),
    ("selu", "selu", {}, [[3, 17]]),
    ("hardtanh_bounds", "hardtanh", {"min_val": -0.8, "max_val": 1.3}, [[3, 17]]),
    ("hardsigmoid", "hardsigmoid", {}, [[3, 17]], "wide"),
    ("hardswish", "hardswish", {}, [[3, 17]], "wide"),
    ("softplus_beta_threshold", "softplus", {"beta": 2.0, "threshold": 3.0}, [[3, 17]]),
    ("softsign", "softsign", {}, [[3, 17]]),
    ("silu", "silu", {}, [[3, 17]]),
    ("mish", "mish", {}, [[3, 17]]),
    ("exp", "exp", {}, [[3, 17]]),
    ("log", "log", {}, [[3, 17]], "positive"),
    ("sqrt", "sqrt", {}, [[3, 17]], "positive"),
    ("rsqrt", "rsqrt", {}, [[3, 17]], "positive"),
    ("abs", "abs", {}, [[3, 17]]),
    ("pow_cube", "pow", {"exponent": 3.0}, [[3, 17]]),
    ("pow_fractional", "pow", {"exponent": 0.37}, [[3, 17]], "positive"),
    ("clamp_low_only", "clamp", {"low": -0.3}, [[3, 17]]),
    ("clamp_high_only", "clamp", {"high": 0.4}, [[3, 17]]),
    ("layer_norm_two_dims_affine", "layer_norm", {"normalized_shape": [4, 5], "eps": 1e-3},
     [[2, 3, 4, 5], [4, 5], [4, 5]]),
    ("layer_norm_plain", "layer_norm", {"normalized_shape": [6]}, [[3, 6]]),
    ("batch_norm2d_affine", "batch_norm", {"eps": 1e-3}, [[3, 4, 5, 6], [4], [4]]),
    ("batch_norm1d_weight_only", "batch_norm", {}, [[5, 3, 7], [3]]),
    ("instance_norm2d_affine", "instance_norm", {"eps": 1e-4}, [[2, 3, 5, 4], [3], [3]]),
    ("group_norm_affine", "group_norm", {"num_groups": 2, "eps": 1e-4}, [[2, 6, 4, 3], [6], [6]]),
    ("group_norm3d_plain", "group_norm", {"num_groups": 3}, [[2, 3, 2, 3, 4]]),
    ("cumsum_middle_dim", "cumsum", {"dim": 1}, [[2, 9, 3]]),
    ("cumsum_reverse_exclusive", "cumsum", {"dim": -1, "reverse": True, "exclusive": True}, [[3, 8]]),
    ("cumprod_exclusive", "cumprod", {"dim": 1, "exclusive": True}, [[2, 7]], "near_one"),
    ("cumprod_reverse", "cumprod", {"dim": 0, "reverse": True}, [[6, 3]], "near_one"),
    ("shift", "shift", {"value": -0.75}, [[3, 17]]),
    ("linear_bias_batched", "linear", {}, [[2, 3, 5], [4, 5], [4]]),
    ("linear_no_bias", "linear", {}, [[6, 7], [3, 7]]),
    ("permute_three_dims", "permute", {"dims": [2, 0, 1]}, [[2, 3, 4]]),
    ("transpose_negative_dims", "permute", {"dims": [0, -1, 2, 1]}, [[2, 3, 2, 4]]),
    ("reshape_inferred", "reshape", {"shape": [4, -1, 3]}, [[2, 6, 5, 3]]),
    ("flatten_trailing", "reshape", {"shape": [3, 20]}, [[3, 4, 5]]),
    ("concat_middle_three", "concat", {"dim": 1}, [[2, 3, 4], [2, 1, 4], [2, 2, 4]]),
    ("concat_last_negative", "concat", {"dim": -1}, [[3, 2], [3, 5]]),
    ("flip_two_dims", "flip", {"dims": [0, -1]}, [[3, 2, 5]]),
    ("narrow_middle", "narrow", {"dim": 1, "start": 2, "length": 3}, [[2, 7, 3]]),
    ("triu_above_diagonal", "triu", {"diagonal": 1}, [[2, 4, 5]]),
    ("tril_main_diagonal", "tril", {}, [[5, 4]]),
    ("tril_below_diagonal", "tril", {"diagonal": -2}, [[6, 6]]),
    ("diag", "diag", {}, [[6]]),
    ("smooth_l1_beta", "smooth_l1", {"beta": 0.6}, [[3, 17], [3, 17]]),
]

# A scale by a number over an axis: KL divergence's batchmean (a sum
# divided by the batch size).
CASES += [
    ("scale_over_a_divisor", "scale", {"value": 3.0, "divisor": 7}, [[2, 9]]),
]

# gather with an integer index (kept as float32 values in the fixture, as
# kernelgate's host tensors hold an int64 tensor's draw): longer than x along
# dim, shorter outside it. The draw is one per operand.
CASES += [
    ("gather_middle_dim_negative", "gather", {"dim": -2}, [[3, 5, 4], [2, 7, 3]], ["normal", "index_below_5"]),
]

# argmax and argmin (int64 positions, kept as float64 in the fixture) on
# small integers, so that ties occur: the first position wins.
CASES += [
    ("argmax_middle_dim_keepdim_ties", "argmax", {"dim": 1, "keepdim": True}, [[3, 6, 4]], "ties"),
    ("argmin_last_dim_ties", "argmin", {"dim": -1}, [[4, 7]], "ties"),
]

# Scaled dot-product attention with more keys than queries and values
# wider than the embedding.
CASES += [
    ("attention_batched_heads", "attention", {}, [[2, 3, 5, 4], [2, 3, 6, 4], [2, 3, 6, 7]]),
]


# The operands' distributions besides the default normal one: positive
# values for log, sqrt, rsqrt and fractional powers; a divisor kept away from
# zero; values near one for products (so they neither vanish nor blow up);
# a wider normal where the op bends at -3 and 3 (hardsigmoid, hardswish);
# positions along a dim for gather's index; small integers, which tie.
DRAWS = {
    "normal": lambda rng, shape: 1.5 * rng.standard_normal(shape),
    "positive": lambda rng, shape: rng.uniform(0.05, 4.0, shape),
    "away_from_zero": lambda rng, shape: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape),
    "near_one": lambda rng, shape: rng.uniform(0.5, 1.5, shape),
    "wide": lambda rng, shape: 3.0 * rng.standard_normal(shape),
    "index_below_5": lambda rng, shape: rng.integers(0, 5, shape).astype(np.float64),
    "ties": lambda rng, shape: rng.integers(-2, 3, shape).astype(np.float64),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "op_fixtures"), help="fixture folder")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rng = np.random.default_rng(20261204)
    manifest = {"kind": "kernelgate-op-golden", "schema_version": 1,
                "generator": "tests/golden/make_op_fixtures.py", "torch": torch.__version__, "cases": []}
    for name, op, attributes, shapes, *draw in CASES:
        # float32 values, as kernelgate's inputs are, widened to float64.
        draws = draw[0] if draw and isinstance(draw[0], list) else [draw[0] if draw else "normal"] * len(shapes)
        operands = [DRAWS[d](rng, shape).astype(np.float32) for d, shape in zip(draws, shapes)]
        with torch.no_grad():
            want = apply(op, [torch.from_numpy(o).double() for o in operands], attributes).double().numpy()
        case_dir = out / name
        case_dir.mkdir()
        files = []
        for i, operand in enumerate(operands):
            np.save(case_dir / f"operand{i}.npy", operand)
            files.append(f"{name}/operand{i}.npy")
        np.save(case_dir / "output.npy", want)
        manifest["cases"].append({"name": name, "op": op, "attributes": attributes, "operands": files,
                                  "output": f"{name}/output.npy"})
        print(f"{name:48s} {op:15s} -> {list(want.shape)}")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{len(CASES)} cases written to {out}")


if __name__ == "__main__":
    main()
