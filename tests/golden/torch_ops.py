"""kernelgate's ops (docs/ops.md) in torch, and a suite's forward pass built
from them. Only the fixture scripts of tests/golden/ import this."""
import re

import torch
import torch.nn.functional as F


def evaluate_expression(text, axes):
    """An expression of the suite format (docs/suite-format.md) at given axes.
    Attributes of ops are small: axis names, integers, + - * / and %."""
    if isinstance(text, int):
        return text
    if not re.fullmatch(r"[A-Za-z0-9_ +\-*/%()]+", text):
        raise SystemExit(f"expression {text!r} is beyond what this script evaluates")
    python = re.sub(r"(?<![/])/(?![/])", "//", text)
    return int(eval(python, {"__builtins__": {}}, dict(axes)))  # noqa: S307 - checked above


def resolve(step, axes):
    """One "forward" step with its integer attributes evaluated."""
    attributes = {}
    for key, value in step.items():
        if key in ("op", "inputs", "output"):
            continue
        if key in ("kernel", "stride", "padding", "dilation", "output_padding", "groups", "normalized_shape",
                   "num_groups", "shape", "start", "length", "diagonal"):
            value = ([evaluate_expression(v, axes) for v in value] if isinstance(value, list)
                     else evaluate_expression(value, axes))
        attributes[key] = value
    return attributes


def _spatial(value, dims):
    return tuple(value) if isinstance(value, list) else (value,) * dims


def apply(op, operands, a):
    """The op `op` with resolved attributes `a` on torch tensors."""
    x = operands[0]
    dims = x.dim() - 2
    if op in ("conv", "conv_transpose"):
        bias = operands[2] if len(operands) == 3 else None
        common = dict(stride=_spatial(a.get("stride", 1), dims), padding=_spatial(a.get("padding", 0), dims),
                      dilation=_spatial(a.get("dilation", 1), dims), groups=a.get("groups", 1))
        if op == "conv":
            return getattr(F, f"conv{dims}d")(x, operands[1], bias, **common)
        return getattr(F, f"conv_transpose{dims}d")(
            x, operands[1], bias, output_padding=_spatial(a.get("output_padding", 0), dims), **common)
    if op == "max_pool":
        kernel = _spatial(a["kernel"], dims)
        return getattr(F, f"max_pool{dims}d")(x, kernel, stride=_spatial(a.get("stride", a["kernel"]), dims),
                                               padding=_spatial(a.get("padding", 0), dims),
                                               dilation=_spatial(a.get("dilation", 1), dims))
    if op == "avg_pool":
        kernel = _spatial(a["kernel"], dims)
        return getattr(F, f"avg_pool{dims}d")(x, kernel, stride=_spatial(a.get("stride", a["kernel"]), dims),
                                               padding=_spatial(a.get("padding", 0), dims),
                                               count_include_pad=a.get("count_include_pad", True))
    reductions = {"sum": torch.sum, "mean": torch.mean, "max": torch.amax, "min": torch.amin,
                  "logsumexp": torch.logsumexp}
    if op in reductions:
        return reductions[op](x, dim=a["dims"], keepdim=a.get("keepdim", False))
    if op == "prod":  # torch.prod takes one dim at a time
        for dim in sorted((d % x.dim() for d in a["dims"]), reverse=True):
            x = torch.prod(x, dim=dim, keepdim=a.get("keepdim", False))
        return x
    weight = operands[1] if len(operands) > 1 else None
    bias = operands[2] if len(operands) > 2 else None
    eps = a.get("eps", 1e-5)
    if op == "layer_norm":
        return F.layer_norm(x, list(a["normalized_shape"]), weight, bias, eps)
    if op == "batch_norm":  # training mode: the batch's own statistics
        return F.batch_norm(x, None, None, weight, bias, training=True, eps=eps)
    if op == "instance_norm":
        return F.instance_norm(x, weight=weight, bias=bias, eps=eps)
    if op == "group_norm":
        return F.group_norm(x, a["num_groups"], weight, bias, eps)
    if op in ("cumsum", "cumprod"):
        dim = a["dim"]
        scan = getattr(torch, op)
        if a.get("reverse", False):
            x = x.flip(dim)
        y = scan(x, dim=dim)
        if a.get("exclusive", False):  # each element's own term left out: the scan shifted by one
            first = torch.zeros_like(x.narrow(dim, 0, 1)) if op == "cumsum" else torch.ones_like(x.narrow(dim, 0, 1))
            y = torch.cat([first, y.narrow(dim, 0, x.shape[dim] - 1)], dim=dim)
        return y.flip(dim) if a.get("reverse", False) else y
    if op == "permute":
        return x.permute(*a["dims"])
    if op == "reshape":
        return x.reshape(a["shape"])
    if op == "concat":
        return torch.cat(operands, dim=a["dim"])
    if op == "flip":
        return torch.flip(x, dims=a["dims"])
    if op == "narrow":
        return x.narrow(a["dim"], a["start"], a["length"])
    if op in ("triu", "tril"):
        return getattr(torch, op)(x, diagonal=a.get("diagonal", 0))
    if op == "diag":
        return torch.diag(x)
    if op == "attention":
        return F.scaled_dot_product_attention(x, operands[1], operands[2])
    if op in ("argmax", "argmin"):
        return getattr(torch, op)(x, dim=a["dim"], keepdim=a.get("keepdim", False))
    if op == "gather":
        return torch.gather(x, a["dim"], operands[1].long())
    if op == "smooth_l1":
        return F.smooth_l1_loss(x, operands[1], reduction="none", beta=a.get("beta", 1.0))
    if op == "linear":
        return F.linear(x, operands[1], operands[2] if len(operands) > 2 else None)
    if op in ("softmax", "log_softmax"):
        return getattr(F, op)(x, dim=a["dim"])
    binary = {"add": torch.add, "subtract": torch.sub, "multiply": torch.mul, "divide": torch.div,
              "matmul": torch.matmul}
    if op in binary:
        return binary[op](x, operands[1])
    unary = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
             "sigmoid": torch.sigmoid, "tanh": torch.tanh, "selu": F.selu, "hardsigmoid": F.hardsigmoid,
             "hardswish": F.hardswish, "softsign": F.softsign, "silu": F.silu, "mish": F.mish, "exp": torch.exp,
             "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "abs": torch.abs}
    if op in unary:
        return unary[op](x)
    if op == "leaky_relu":
        return F.leaky_relu(x, a.get("negative_slope", 0.01))
    if op == "elu":
        return F.elu(x, a.get("alpha", 1.0))
    if op == "hardtanh":
        return F.hardtanh(x, a.get("min_val", -1.0), a.get("max_val", 1.0))
    if op == "softplus":
        return F.softplus(x, a.get("beta", 1.0), a.get("threshold", 20.0))
    if op == "pow":
        return torch.pow(x, a["exponent"])
    if op == "clamp":
        return torch.clamp(x, a.get("low"), a.get("high"))
    if op == "scale":
        return x * a["value"] / a.get("divisor", 1)
    if op == "shift":
        return x + a["value"]
    raise SystemExit(f"unknown op {op}")


def run_forward(suite, axes, tensors):
    """The suite's forward pass in float64 on our tensors (numpy arrays by
    name); the output as a numpy array."""
    values = {name: torch.from_numpy(array).double() for name, array in tensors.items()}
    with torch.no_grad():
        for step in suite["forward"]:
            operands = [values[name] for name in step["inputs"]]
            values[step["output"]] = apply(step["op"], operands, resolve(step, axes))
    return values[suite["forward"][-1]["output"]].numpy()
