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
        if key in ("kernel", "stride", "padding", "dilation", "output_padding", "groups"):
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
    if op == "sum":
        return torch.sum(x, dim=a["dims"], keepdim=a.get("keepdim", False))
    if op == "mean":
        return torch.mean(x, dim=a["dims"], keepdim=a.get("keepdim", False))
    if op == "max":
        return torch.amax(x, dim=a["dims"], keepdim=a.get("keepdim", False))
    binary = {"add": torch.add, "subtract": torch.sub, "multiply": torch.mul, "matmul": torch.matmul}
    if op in binary:
        return binary[op](x, operands[1])
    unary = {"relu": F.relu, "gelu": F.gelu, "sigmoid": torch.sigmoid, "tanh": torch.tanh}
    if op in unary:
        return unary[op](x)
    if op == "clamp":
        return torch.clamp(x, a["low"], a["high"])
    if op == "scale":
        return x * a["value"]
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
