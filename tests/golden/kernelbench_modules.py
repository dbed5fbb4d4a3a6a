"""The first three KernelBench modules written out by hand, as KernelBench
defines them (a second check beside the problem files themselves), the glue
that runs them in float64 on tensors that kernelgate generated, and the input
generator of docs/inputs.md in numpy.

Only the fixture scripts of tests/golden/ import this (torch is never a
dependency of the build or of the tests).
"""
import hashlib
import inspect
import json
import pathlib
import sys

import numpy as np
import torch
import torch.nn as nn


class ConvTransposed2d(nn.Module):
    """level1/71_conv_transposed_2D__asymmetric_input__square_kernel.py"""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=False):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(
            in_channels, out_channels, (kernel_size, kernel_size), stride=stride,
            padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x):
        return self.conv_transpose2d(x)


class DepthwiseSeparableConv2d(nn.Module):
    """level1/86_conv_depthwise_separable_2D.py"""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, bias=False):
        super().__init__()
        self.depthwise = nn.Conv2d(in_channels, in_channels, kernel_size, stride=stride,
                                   padding=padding, dilation=dilation, groups=in_channels,
                                   bias=bias)
        self.pointwise = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=bias)

    def forward(self, x):
        x = self.depthwise(x)
        x = self.pointwise(x)
        return x


class ConvTranspose3dMaxMaxSum(nn.Module):
    """level2/78_ConvTranspose3d_Max_Max_Sum.py"""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.max_pool1 = nn.MaxPool3d(kernel_size=2)
        self.max_pool2 = nn.MaxPool3d(kernel_size=3)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = self.max_pool1(x)
        x = self.max_pool2(x)
        x = torch.sum(x, dim=1, keepdim=True)
        return x


def build(workload, axes):
    """The module of a workload at the given axes, and the map from our tensor
    names to its parameters; None for a workload not written out here."""
    a = axes
    if workload == "l1_071_conv_transposed_2d":
        m = ConvTransposed2d(a["in_channels"], a["out_channels"], a["kernel_size"], a["stride"],
                             a["padding"], a["output_padding"], a["groups"])
        return m, {"weight": m.conv_transpose2d.weight}
    if workload == "l1_086_conv_depthwise_separable_2d":
        m = DepthwiseSeparableConv2d(a["in_channels"], a["out_channels"], a["kernel_size"],
                                     a["stride"], a["padding"], a["dilation"])
        return m, {"depthwise_weight": m.depthwise.weight, "pointwise_weight": m.pointwise.weight}
    if workload == "l2_078_conv_transpose3d_max_max_sum":
        m = ConvTranspose3dMaxMaxSum(a["in_channels"], a["out_channels"], a["kernel_size"],
                                     a["stride"], a["padding"])
        return m, {"weight": m.conv_transpose.weight, "bias": m.conv_transpose.bias}
    return None


def run_float64(workload, axes, tensors):
    """Runs the hand-written module in float64 with our inputs and parameters
    (numpy arrays by tensor name); returns the output as a float64 numpy
    array, or None for a workload not written out here."""
    built = build(workload, axes)
    if built is None:
        return None
    module, params = built
    module = module.double()
    with torch.no_grad():
        for name, param in params.items():
            value = torch.from_numpy(np.asarray(tensors[name], dtype=np.float64))
            if tuple(value.shape) != tuple(param.shape):
                raise SystemExit(f"{workload}: {name} has shape {tuple(value.shape)}, "
                                 f"torch expects {tuple(param.shape)}")
            param.copy_(value)
        x = torch.from_numpy(np.asarray(tensors["x"], dtype=np.float64))
        return module(x).numpy()


def kernelbench_suites(folder):
    """The suites under `folder` whose origin is a KernelBench problem file, by id."""
    suites = {}
    for path in sorted(pathlib.Path(folder).rglob("*.json")):
        suite = json.loads(path.read_text())
        if suite.get("origin", {}).get("benchmark") == "KernelBench" and "file" in suite["origin"]:
            suites[suite["id"]] = suite
    return suites


def problem_folder(checkout):
    """The folder of a KernelBench checkout that holds level1/, level2/, ..."""
    folder = pathlib.Path(checkout)
    return folder / "KernelBench" if (folder / "KernelBench").is_dir() else folder


def kernelbench_module(problem_file, axes):
    """KernelBench's Model of a problem file at the given axes (its size
    constants and the Model's arguments replaced by the axes of the same
    name), and the inputs get_inputs() makes at those sizes (their shapes are
    what counts)."""
    namespace = {"__name__": "kernelbench_problem", "__file__": str(problem_file)}
    exec(compile(problem_file.read_text(), str(problem_file), "exec"), namespace)  # noqa: S102 - KernelBench's file
    unused = set(axes)
    for name, value in axes.items():
        if isinstance(namespace.get(name), int):
            namespace[name] = value
            unused.discard(name)
    model_class = namespace["Model"]
    signature = inspect.signature(model_class.__init__)
    bound = signature.bind_partial(None, *namespace["get_init_inputs"]())
    for name in signature.parameters:
        if name in axes:
            bound.arguments[name] = axes[name]
            unused.discard(name)
    if unused:
        sys.exit(f"{problem_file.name}: axes {sorted(unused)} are neither a size constant nor an argument "
                 f"of Model; name them as the problem file does")
    model = model_class(*bound.args[1:], **bound.kwargs)
    return model, namespace["get_inputs"]()


def as_torch(array):
    """A dumped tensor for a float64 module: floats widened to float64,
    integer and bool tensors (targets, masks) kept in their dtype."""
    array = np.asarray(array)
    return torch.from_numpy(array if array.dtype.kind in "ib" else array.astype(np.float64))


def run_kernelbench(problem_file, suite, axes, tensors):
    """The problem's module in float64 on our tensors: its parameters, in
    order, are the suite's parameter tensors, and its forward's arguments are
    the suite's inputs, by name."""
    model, reference_inputs = kernelbench_module(problem_file, axes)
    model = model.double()
    inputs = [t["name"] for t in suite["tensors"] if t["role"] == "input"]
    parameters = [t["name"] for t in suite["tensors"] if t["role"] == "parameter"]
    arguments = list(inspect.signature(model.forward).parameters)
    if arguments != inputs:
        sys.exit(f"{suite['id']}: the module's forward takes {arguments}, the suite's inputs are {inputs}")
    module_parameters = list(model.named_parameters())
    if len(module_parameters) != len(parameters):
        sys.exit(f"{suite['id']}: the module has parameters {[n for n, _ in module_parameters]}, "
                 f"the suite {parameters}")
    with torch.no_grad():
        for name, (module_name, parameter) in zip(parameters, module_parameters):
            value = torch.from_numpy(np.asarray(tensors[name], dtype=np.float64))
            if tuple(value.shape) != tuple(parameter.shape):
                sys.exit(f"{suite['id']}: {name} has shape {tuple(value.shape)}, the module's {module_name} "
                         f"{tuple(parameter.shape)}")
            parameter.copy_(value)
        arrays = []
        for name, made in zip(inputs, reference_inputs):
            if tuple(made.shape) != tuple(tensors[name].shape):
                sys.exit(f"{suite['id']}: {name} has shape {tuple(tensors[name].shape)}, get_inputs() "
                         f"makes {tuple(made.shape)}")
            arrays.append(as_torch(tensors[name]))
        return model(*arrays).numpy()


def rel_l2(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return float("inf")
    return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-300))


# The input generator of docs/inputs.md, reimplemented in numpy so that a dump
# can be checked independently of the C++ code.
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK = np.uint64(0xFFFFFFFF)


def input_set_seed(run_seed, input_set):
    """The generator seed of input set `input_set` (0 = A) of a run's seed."""
    material = f"kernelgate-set/1\n{run_seed}\n{input_set}"
    return int.from_bytes(hashlib.sha256(material.encode()).digest()[:8], "little")


def input_key(workload, axes, seed, tensor):
    axes_json = json.dumps({k: int(v) for k, v in axes.items()}, sort_keys=True,
                           separators=(",", ":"))
    material = f"kernelgate-inputs/1\n{workload}\n{axes_json}\n{seed}\n{tensor}"
    return int.from_bytes(hashlib.sha256(material.encode()).digest()[:8], "little")


def philox_words(key, count):
    """Words 0 and 1 of Philox4x32-10 for counters (i, i >> 32, 0, 0), i < count."""
    index = np.arange(count, dtype=np.uint64)
    c0, c1 = index & _MASK, index >> np.uint64(32)
    c2 = np.zeros(count, dtype=np.uint64)
    c3 = np.zeros(count, dtype=np.uint64)
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    for r in range(10):
        if r > 0:
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        p0 = _M0 * c0
        p1 = _M1 * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & _MASK
        hi1, lo1 = p1 >> np.uint64(32), p1 & _MASK
        c0, c1, c2, c3 = hi1 ^ c1 ^ np.uint64(k0), lo1, hi0 ^ c3 ^ np.uint64(k1), lo0
    return c0.astype(np.uint32), c1.astype(np.uint32)


def generate(workload, axes, seed, tensor, shape, entry):
    """The tensor of a dump's manifest entry: its "uniform" or "randint"
    {low, high} or "normal" {mean, std} (docs/inputs.md). The draw only: not
    the ops of an input built by ops ("then")."""
    count = int(np.prod(shape))
    w0, w1 = philox_words(input_key(workload, axes, seed, tensor), count)
    top0 = (w0 >> np.uint32(8)).astype(np.float64)
    if "normal" in entry:
        u1 = (top0 + 1.0) / 16777216.0
        u2 = (w1 >> np.uint32(8)).astype(np.float64) / 16777216.0
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        values = entry["normal"]["mean"] + entry["normal"]["std"] * z
    elif "randint" in entry:
        low, high = entry["randint"]["low"], entry["randint"]["high"]
        values = low + np.floor((high - low) * (top0 * (1.0 / 16777216.0)))
        # An int64 or bool tensor holds the same integers in its dtype.
        return values.astype(np.float32).astype(entry.get("dtype", "float32")).reshape(shape)
    else:
        low, high = entry["uniform"]["low"], entry["uniform"]["high"]
        values = low + (high - low) * (top0 * (1.0 / 16777216.0))
    return values.astype(np.float32).reshape(shape)
