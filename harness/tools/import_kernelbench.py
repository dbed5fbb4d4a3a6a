#!/usr/bin/env python3
"""Imports KernelBench problem files as kernelgate suites.

    python3 harness/tools/import_kernelbench.py --out DIR --summary FILE \\
        [--kernelgate build/cpu/bin/kernelgate] PROBLEM.py...

For each problem (a PyTorch module `Model` with `get_inputs()`,
`get_init_inputs()` and module-level size constants: KernelBench's
convention) it traces the module with torch.fx into kernelgate's ops and
writes DIR/<id>.json, once it has checked the suite against the module: each
op's shape at the default axes, and kernelgate's float64 reference at the
suite's ci preset against the module run in float64 by torch, to 1e-12. A
problem it cannot import, or that fails the check, is refused with a reason
and nothing is written. FILE is a JSON array, one entry per problem:
{"file", "id", "status": "imported" | "refused", "reason"}.

docs/adding-a-workload.md ("The importer") states how a module's constants
become axes, its draws inputs and its parameters initialisations. Needs
numpy and torch: a development tool, like the golden fixture scripts, never
a dependency of kernelgate.
"""
import argparse
import contextlib
import importlib.util
import json
import math
import operator
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.fx
import torch.nn as nn
from torch.overrides import TorchFunctionMode

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
TOLERANCE = {
    "fp32": {"atol": 1e-4, "rtol": 1e-4, "rel_l2": 1e-5},
    "tf32": {"atol": 2e-3, "rtol": 2e-3, "rel_l2": 1e-3},
    "bf16": {"atol": 2e-2, "rtol": 2e-2, "rel_l2": 8e-3},
}
SELF_CHECK_BOUND = 1e-12
FACTORS = ((3, 5), (2, 4))  # what a constant is grown by to see what follows it
CI_ELEMENTS = 1_000_000  # every tensor of the forward pass at the ci preset, together
AXIS_MAX = 2 ** 31 - 1


class Refused(Exception):
    """The problem cannot be imported; the message says why."""


# ---------------------------------------------------------------- the module

def load_problem(path):
    spec = importlib.util.spec_from_file_location(f"kernelbench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, name):
            raise Refused(f"the file has no {name}")
    return module


def integer_constants(module):
    """The module-level integers, in the order the file defines them; a
    tuple of integers (input_shape = (32768,)) gives one per element."""
    constants = {}
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, bool):
            continue
        if isinstance(value, int):
            constants[name] = value
        elif isinstance(value, tuple) and value and all(type(v) is int for v in value):
            for i, v in enumerate(value):
                constants[name if len(value) == 1 else f"{name}_{i}"] = v
    return constants


def apply_constants(module, values):
    """Sets the module's constants (tuple elements by their axis names)."""
    tuples = {}
    for name, value in values.items():
        match = re.fullmatch(r"(.+)_(\d+)", name)
        if name in vars(module) or not match:
            original = getattr(module, name)
            setattr(module, name, (value,) if isinstance(original, tuple) else value)
        else:
            tuples.setdefault(match.group(1), {})[int(match.group(2))] = value
    for name, elements in tuples.items():
        setattr(module, name, tuple(elements[i] for i in range(len(elements))))


class Draws(TorchFunctionMode):
    """Records what get_inputs() does: the tensors its factories draw, in
    order, and every op on them, so that each input it returns is a draw
    (perhaps cast) or a draw followed by ops."""

    FACTORIES = {torch.rand: "uniform", torch.randn: "normal", torch.randint: "randint", torch.ones: "ones",
                 torch.zeros: "zeros"}
    CASTS = {"bool": "bool", "float": "float32", "long": "int64"}

    def __init__(self):
        super().__init__()
        self.keep = []  # every tensor seen, so that no id is reused while recording
        self.made = {}  # id(tensor) -> ("draw", factory index) or ("op", record index)
        self.factories = []  # {"distribution", "low", "high", "dtype", "shape"}
        self.records = []  # {"name", "args", "kwargs", "result"}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if not isinstance(result, torch.Tensor):
            return result
        self.keep.append(result)
        name = getattr(func, "__name__", "")
        if name == "__get__":  # a property: x.T
            name = getattr(getattr(func, "__self__", None), "__name__", name)
        if func is torch.tensor and args and isinstance(args[0], (int, float)) and not isinstance(args[0], bool):
            self.made[id(result)] = ("value", float(args[0]))  # nn.Parameter(torch.tensor(2.0)): a number
        elif func in self.FACTORIES:
            draw = {"distribution": self.FACTORIES[func], "dtype": "float32", "shape": tuple(result.shape)}
            if func is torch.randint:
                low, high = (args[0], args[1]) if len(args) >= 3 else (0, args[0])
                draw.update(low=int(low), high=int(high), dtype="int64")
            self.made[id(result)] = ("draw", len(self.factories))
            self.factories.append(draw)
        elif any(isinstance(a, torch.Tensor) and id(a) in self.made for a in list(args) + list(kwargs.values())):
            self.made[id(result)] = ("op", len(self.records))
            self.records.append({"name": name, "args": args, "kwargs": kwargs, "result": result})
        return result

    @contextlib.contextmanager
    def parameters(self):
        """nn.Parameter(t) made while recording is t's draw: Parameter's
        constructor does not pass through torch functions."""
        original = nn.Parameter.__new__
        made = self.made
        keep = self.keep

        def new(cls, data=None, requires_grad=True):
            parameter = original(cls, data, requires_grad)
            if isinstance(data, torch.Tensor) and id(data) in made:
                made[id(parameter)] = made[id(data)]
                keep.append(parameter)
            return parameter

        nn.Parameter.__new__ = new
        try:
            yield
        finally:
            nn.Parameter.__new__ = original

    def describe(self, tensor):
        """An input as a draw: {"factory": k, dtype...}; a cast draw the same
        with its dtype; one built by ops {"built": [record indices], ...};
        a number {"number": value}."""
        if not isinstance(tensor, torch.Tensor):
            return {"number": tensor}
        kind, index = self.made.get(id(tensor), (None, None))
        if kind == "value":
            return {"value": index}
        if kind == "draw":
            return dict(self.factories[index], factory=index)
        if kind == "op":
            record = self.records[index]
            source = record["args"][0] if record["args"] else None
            if record["name"] in self.CASTS and isinstance(source, torch.Tensor) and \
                    self.made.get(id(source), (None,))[0] == "draw":
                return dict(self.describe(source), dtype=self.CASTS[record["name"]])
            return {"built": self.cone(tensor), "dtype": "float32" if tensor.is_floating_point() else str(tensor.dtype)}
        return {"unknown": True}

    def cone(self, tensor):
        """The records a tensor is made by, in the order they ran."""
        seen, stack = set(), [tensor]
        while stack:
            kind, index = self.made.get(id(stack.pop()), (None, None))
            if kind == "op" and index not in seen:
                seen.add(index)
                record = self.records[index]
                stack.extend(a for a in list(record["args"]) + list(record["kwargs"].values())
                             if isinstance(a, torch.Tensor))
        return sorted(seen)


class Recorder(torch.fx.Interpreter):
    """Runs the traced module and keeps each node's arguments and result."""

    def __init__(self, graph_module):
        super().__init__(graph_module)
        self.seen = {}

    @classmethod
    def of(cls, model, traced, constant=lambda tensor: tensor):
        """A recorder of `traced`'s graph over `model`, another instance of
        the module: the constants the tracer kept on the traced one
        (torch.tensor(0.5) in forward) are set on it, through `constant`."""
        for node in traced.graph.nodes:
            if node.op == "get_attr" and not hasattr(model, node.target):
                setattr(model, node.target, constant(getattr(traced, node.target)))
        return cls(torch.fx.GraphModule(model, traced.graph))

    def run_node(self, node):
        args, kwargs = self.fetch_args_kwargs_from_env(node)
        result = super().run_node(node)
        self.seen[node.name] = (args, kwargs, result)
        return result


class Observation:
    """One run of the problem on the meta device at given constants."""

    def __init__(self, module, values, graph=None):
        apply_constants(module, values)
        with torch.device("meta"):
            init = module.get_init_inputs()
            self.construction = Draws()
            with self.construction, self.construction.parameters():
                model = module.Model(*init)
            recorder = Draws()
            with recorder:
                inputs = module.get_inputs()
        self.values = dict(values)
        self.model = model
        self.inputs = inputs
        self.draws = [recorder.describe(t) for t in inputs]
        self.recorder = recorder
        self.graph = graph or torch.fx.symbolic_trace(model)
        run = Recorder.of(model, self.graph)
        run.run(*inputs)
        self.seen = run.seen


# ------------------------------------------------------------ the expressions

def evaluate(expression, values):
    """An expression of the suite format ("/" divides rounding down)."""
    return eval(str(expression).replace("/", "//"), {"__builtins__": {}}, dict(values))  # noqa: S307


def monomials(constants, v0, moved):
    """Candidates k * product(numerator) / product(denominator): each moved
    constant in the numerator when tripling it about triples the value, in
    the denominator when it about divides it by three."""
    numerator, denominator = [], []
    for c, (factor, v1) in moved.items():
        ratio = v1 / v0 if v0 else 0
        if 0.8 * factor < ratio < 1.2 * factor:
            numerator.append(c)
        elif 0.8 / factor < ratio < 1.2 / factor:
            denominator.append(c)
        else:
            return []
    product = math.prod(constants[c] for c in numerator)
    divisor = math.prod(constants[c] for c in denominator)
    top = " * ".join(numerator)
    bottom = denominator[0] if len(denominator) == 1 else "(" + " * ".join(denominator) + ")"
    candidates = []
    k = v0 * divisor / product
    if k >= 1:
        terms = ([str(round(k))] if round(k) != 1 or not numerator else []) + numerator
        text = " * ".join(terms)
        candidates.append(text if not denominator else (f"({text})" if len(terms) > 1 else text) + " / " + bottom)
    elif numerator:
        scale = round(1 / k)
        candidates.append(f"{top} / " + (str(scale) if not denominator else f"({scale} * {bottom[1:-1] if bottom.startswith('(') else bottom})"))
    return candidates


def fit_extent(constants, base, probes, value_of):
    """The expression over the axes that an integer follows across the runs:
    value_of(observation) gives it in one run. base is the run at the
    defaults; probes[c] the runs with constant c grown (Problem.grown).
    Candidates (a constant times an integer over others, or a constant times
    an integer plus one) are kept only where they give the value of every run."""
    v0 = value_of(base)
    moved = {}  # constant -> (its first factor, the value there)
    for c, runs in probes.items():
        values = [value_of(run) for run in runs]
        if any(v != v0 for v in values):
            moved[c] = (runs[0].factor, values[0])
    if not moved:
        return v0, set()
    candidates = monomials(constants, v0, moved)
    if len(moved) == 1:
        (c, (factor, v1)), = moved.items()
        a = (v1 - v0) / ((factor - 1) * constants[c])
        if a == int(a) and a != 0:
            b = v0 - int(a) * constants[c]
            term = c if a == 1 else f"{int(a)} * {c}"
            candidates.append(term + (f" + {b}" if b > 0 else f" - {-b}" if b < 0 else ""))
    for candidate in candidates:
        if all(evaluate(candidate, run.values) == value_of(run)
               for run in [base] + [r for runs in probes.values() for r in runs]):
            return candidate, set(moved)
    raise Refused(f"an extent ({v0}) follows the constants {', '.join(sorted(moved))} in a way "
                  "this importer does not fit")


# ------------------------------------------------------------------ the ops

def dims_of(value):
    if value is None:
        return None
    return [value] if isinstance(value, int) else list(value)


class Translation:
    """The fx graph of one problem as kernelgate ops."""

    def __init__(self, model, base, fit):
        self.model = model
        self.base = base
        self.fit = fit  # fit(value_of) -> expression, over the probe runs
        self.ops = []
        self.names = {}  # fx node name -> tensor name
        self.parameters = {}  # tensor name -> (state_dict key, module or None)
        self.pending = {}  # fx node of torch.max(x, dim): ("max", x, dim, keepdim), read by getitem
        self.values = {}  # fx node name -> the number a rank-0 tensor of the module holds

    def number(self, value):
        """A number an op takes: a Python number, or a node the module
        computed it in (an input that get_inputs() gives as a number)."""
        if isinstance(value, torch.fx.Node) and value.name in self.values:
            return self.values[value.name]
        if isinstance(value, torch.fx.Node):
            value = self.result(value)
        if isinstance(value, torch.Tensor) or not isinstance(value, (int, float)):
            raise Refused(f"{value!r} is not a number")
        return float(value)

    def is_tensor(self, value):
        return (isinstance(value, torch.fx.Node) and value.name not in self.values
                and isinstance(self.result(value), torch.Tensor))

    def name(self, node):
        if isinstance(node, torch.fx.Node):
            if node.name not in self.names:
                raise Refused(f"'{node.name}' is used before kernelgate can name it")
            return self.names[node.name]
        raise Refused(f"an operand {node!r} is not a tensor")

    def result(self, node):
        return self.base.seen[node.name][2]

    def emit(self, op, inputs, output, **attributes):
        self.ops.append({"op": op, "inputs": inputs, "output": output, **attributes})
        return output

    def parameter(self, key, module=None):
        tensor = key.replace(".", "_")
        self.parameters[tensor] = (key, module)
        return tensor

    def extents(self, node):
        """The fitted extents of a node's result, a reshape's target: one
        that no expression fits is left to the reshape (-1)."""
        extents, unfit = [], []
        for d in range(len(self.result(node).shape)):
            try:
                extents.append(self.fit(lambda run, d=d: int(run.seen[node.name][2].shape[d])))
            except Refused as refusal:
                extents.append(-1)
                unfit.append(refusal)
        if len(unfit) > 1:
            raise unfit[0]
        return extents

    def translate(self):
        graph = self.base.graph.graph
        last = None
        for node in graph.nodes:
            if node.op == "placeholder":
                if isinstance(self.result(node), torch.Tensor):
                    self.names[node.name] = node.target  # the argument's own name: A, not fx's a
            elif node.op == "get_attr":
                owned = dict(self.model.named_parameters())
                made = self.base.construction.describe(owned[node.target]) if node.target in owned else {}
                if node.target not in owned and node.target not in dict(self.model.named_buffers()):
                    # a constant the tracer kept (torch.tensor(0.5) in forward): a number
                    constant = getattr(self.base.graph, node.target)
                    if not isinstance(constant, torch.Tensor) or constant.numel() != 1:
                        raise Refused(f"forward makes a constant tensor {node.target}")
                    self.values[node.name] = float(constant.reshape(-1)[0])
                elif "value" in made:
                    self.values[node.name] = made["value"]  # a number the module keeps as a tensor
                else:
                    self.names[node.name] = self.parameter(node.target)
            elif node.op == "output":
                last = node.args[0]
            else:
                made = self.node(node)
                if made is not None:
                    self.names[node.name] = made
        if not isinstance(last, torch.fx.Node) or last.name not in self.names:
            raise Refused("the forward pass returns something other than one tensor")
        if not self.ops or self.names[last.name] != self.ops[-1]["output"] or any(
                op["output"] == self.names[last.name] for op in self.ops[:-1]):
            raise Refused("the forward pass returns a tensor that is not its last op's")
        self.output_dtype = self.result(last).dtype
        if self.result(last).dim() == 0:  # a loss: one element
            self.emit("reshape", [self.ops[-1]["output"]], last.name + "_one", shape=[1])
        return self.ops

    def node(self, node):
        if node.op == "call_module":
            return self.module_call(node, self.model.get_submodule(node.target))
        target = node.target
        args, kwargs = node.args, node.kwargs
        name = node.name
        key = target if isinstance(target, str) else getattr(target, "__name__", str(target))
        if key in ("contiguous", "clone", "detach") or (key == "float" and node.op == "call_method"):
            if args[0].name in self.values:
                self.values[name] = self.values[args[0].name]
                return None
            return self.name(args[0])
        if key == "tensor" and args and isinstance(args[0], (int, float)):
            self.values[name] = float(args[0])  # torch.tensor(2.0): a number
            return None
        result = self.result(node)
        if not isinstance(result, torch.Tensor) and type(result).__module__ != "torch.return_types":
            return None  # an integer the module computes (x.size(1) - 1): read where an op takes it
        if (target is operator.getitem or key == "getattr") and args[0].name in self.pending:
            kind, x, dim, keepdim = self.pending[args[0].name]
            if args[1] in (0, "values"):
                return self.emit(kind, [x], name, dims=[dim], keepdim=keepdim)
            return self.emit("arg" + kind, [x], name, dim=dim, keepdim=keepdim)
        if target is operator.getitem:
            raise Refused("indexing or slicing a tensor is not translated yet")
        return self.function(node, key, args, kwargs)

    def function(self, node, key, args, kwargs):
        """A call_function or call_method node, by the name of what it calls."""
        for keys, translate in FUNCTIONS:
            if key in keys:
                return translate(self, node, key, args, kwargs)
        raise Refused(f"no kernelgate op for {node.op} '{key}'")

    def activation(self, node, key, args, kwargs):
        x = self.name(args[0])
        if key in ACTIVATIONS:
            return self.emit(ACTIVATIONS[key], [x], node.name)
        if key == "gelu":
            return self.emit("gelu_tanh" if kwargs.get("approximate") == "tanh" else "gelu", [x], node.name)
        scalars = {name: float(argument(args, kwargs, position, name, default))
                   for position, (name, default) in enumerate(ACTIVATION_SCALARS[key], start=1)}
        return self.emit(key, [x], node.name, **scalars)

    def reduction(self, node, key, args, kwargs):
        dims = dims_of(argument(args, kwargs, 1, "dim", None))
        keepdim = bool(argument(args, kwargs, 2, "keepdim", False))
        if dims is None:
            dims = list(range(self.result(args[0]).dim()))
        op = {"amax": "max", "amin": "min"}.get(key, key)
        return self.emit(op, [self.name(args[0])], node.name, dims=dims, keepdim=keepdim)

    def extreme(self, node, key, args, kwargs):
        """torch.max and torch.min: along a dim (values and positions, read
        by a getitem or .values), or against a number (a clamp)."""
        dim = argument(args, kwargs, 1, "dim", None)
        if dim is None:
            return self.reduction(node, key, args, kwargs)
        if isinstance(dim, torch.fx.Node) and dim.name in self.values:
            bound = "high" if key == "min" else "low"
            return self.emit("clamp", [self.name(args[0])], node.name, **{bound: self.values[dim.name]})
        if isinstance(dim, torch.fx.Node):
            raise Refused(f"{key} of two tensors is not translated yet")
        keepdim = bool(argument(args, kwargs, 2, "keepdim", False))
        self.pending[node.name] = (key, self.name(args[0]), dim, keepdim)
        return None

    def position(self, node, key, args, kwargs):
        dim = argument(args, kwargs, 1, "dim", None)
        if dim is None:
            raise Refused(f"{key} over the flattened tensor is not translated yet")
        keepdim = bool(argument(args, kwargs, 2, "keepdim", False))
        return self.emit(key, [self.name(args[0])], node.name, dim=dim, keepdim=keepdim)

    def along_dim(self, node, key, args, kwargs):
        """softmax, log_softmax, cumsum and cumprod along their dim."""
        dim = argument(args, kwargs, 1, "dim", None)
        if dim is None:
            raise Refused(f"{key} without a dim")
        return self.emit(key, [self.name(args[0])], node.name, dim=dim)

    def power(self, node, key, args, kwargs):
        if isinstance(args[1], torch.fx.Node):
            raise Refused("a power with a tensor exponent is not translated")
        return self.emit("pow", [self.name(args[0])], node.name, exponent=float(args[1]))

    def clamp(self, node, key, args, kwargs):
        bounds = {bound: float(value) for bound, value in
                  (("low", argument(args, kwargs, 1, "min", None)), ("high", argument(args, kwargs, 2, "max", None)))
                  if value is not None}
        if not bounds:
            raise Refused("clamp without bounds")
        return self.emit("clamp", [self.name(args[0])], node.name, **bounds)

    def matmul(self, node, key, args, kwargs):
        a, b = self.result(args[0]), self.result(args[1])
        if a.dim() < 2 or b.dim() < 2:
            raise Refused("matmul with a vector operand is not translated yet")
        if b.dim() > 2 and a.shape[:-2] != b.shape[:-2]:
            raise Refused("matmul broadcasting batch dimensions is not translated yet")
        return self.emit("matmul", [self.name(args[0]), self.name(args[1])], node.name)

    def linear(self, node, key, args, kwargs):
        operands = [self.name(a) for a in list(args[:3]) + [kwargs.get("bias")] if a is not None]
        return self.emit("linear", operands, node.name)

    def reshape(self, node, key, args, kwargs):
        return self.emit("reshape", [self.name(args[0])], node.name, shape=self.extents(node))

    def permute(self, node, key, args, kwargs):
        rank = self.result(args[0]).dim()
        if key == "permute":
            dims = list(args[1:]) if len(args) > 2 else list(args[1])
        elif key in ("t", "getattr"):  # x.t(), x.T, x.mT
            if key == "getattr" and args[1] not in ("T", "mT"):
                raise Refused(f"the attribute {args[1]} of a tensor is not translated")
            dims = transposed_dims(args[1] if key == "getattr" else "t", rank)
        else:  # transpose(d0, d1)
            d0, d1 = (d % rank for d in args[1:3])
            dims = list(range(rank))
            dims[d0], dims[d1] = dims[d1], dims[d0]
        return self.emit("permute", [self.name(args[0])], node.name, dims=dims)

    def mask(self, node, key, args, kwargs):
        """triu, tril and diag."""
        if key == "diag":
            return self.emit("diag", [self.name(args[0])], node.name)
        return self.emit(key, [self.name(args[0])], node.name, diagonal=argument(args, kwargs, 1, "diagonal", 0))

    def other(self, node, key, args, kwargs):
        """The rest: flip, concat, negation, zeros_like and dropout."""
        x = args[0]
        if key == "flip":
            return self.emit("flip", [self.name(x)], node.name, dims=dims_of(argument(args, kwargs, 1, "dims")))
        if key == "cat":
            return self.emit("concat", [self.name(t) for t in x], node.name, dim=argument(args, kwargs, 1, "dim", 0))
        if key in ("neg", "zeros_like"):
            return self.emit("scale", [self.name(x)], node.name, value=-1.0 if key == "neg" else 0.0)
        refuse_dropout(argument(args, kwargs, 1, "p", 0.5))  # dropout
        return self.name(x)

    def smooth_l1_loss(self, node, key, args, kwargs):
        if kwargs.get("reduction", "mean") != "mean":
            raise Refused("smooth_l1_loss other than the mean")
        beta = float(kwargs.get("beta", 1.0))
        rank = self.result(args[0]).dim()
        losses = self.emit("smooth_l1", [self.name(args[0]), self.name(args[1])], node.name + "_each", beta=beta)
        return self.emit("mean", [losses], node.name, dims=list(range(rank)))

    def attention(self, node, key, args, kwargs):
        """F.scaled_dot_product_attention(q, k, v) with PyTorch's defaults
        (no mask, no dropout, not causal, the scale 1/sqrt(E))."""
        given = {name: argument(args, kwargs, position, name, default) for position, (name, default) in
                 enumerate([("attn_mask", None), ("dropout_p", 0.0), ("is_causal", False)], start=3)}
        given["scale"] = kwargs.get("scale")
        if given != {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None} or kwargs.get(
                "enable_gqa", False):
            raise Refused("scaled_dot_product_attention with a mask, dropout, causal masking or a scale of its own")
        a, b = self.result(args[0]), self.result(args[1])
        if a.shape[:-2] != b.shape[:-2] or self.result(args[2]).shape[:-2] != a.shape[:-2]:
            raise Refused("scaled_dot_product_attention broadcasting its batch dimensions")
        return self.emit("attention", [self.name(a) for a in args[:3]], node.name)

    def arithmetic(self, node, key, args):
        a, b = args[0], args[1]
        kind = BINARY[key]
        if self.is_tensor(a) and self.is_tensor(b):
            if kind == "rsubtract":
                a, b, kind = b, a, "subtract"
            return self.emit(kind, [self.name(a), self.name(b)], node.name)
        tensor, number = (a, b) if self.is_tensor(a) else (b, a)
        number = self.number(number)
        self.ops.extend(number_ops(kind, self.name(tensor), number, tensor is a, node.name))
        return node.name

    def evaluated(self, node, position, keyword):
        """Argument `position` (or `keyword`) of a node as evaluated in a run."""
        def value_of(run):
            args, kwargs = run.seen[node.name][0], run.seen[node.name][1]
            return int(args[position] if len(args) > position else kwargs[keyword])
        return value_of

    def narrow(self, node, key):
        """x.narrow(dim, start, length), and x.select(dim, i) as the narrow
        of one element without the dim."""
        args = node.args
        dim = int(self.evaluated(node, 1, "dim")(self.base))
        start = self.fit(self.evaluated(node, 2, "start" if key == "narrow" else "index"))
        length = self.fit(self.evaluated(node, 3, "length")) if key == "narrow" else 1
        narrowed = self.emit("narrow", [self.name(args[0])], node.name + ("_narrowed" if key == "select" else ""),
                             dim=dim, start=start, length=length)
        if key == "narrow":
            return narrowed
        return self.emit("reshape", [narrowed], node.name, shape=self.extents(node))

    def norm_of(self, node, args, kwargs):
        """torch.norm with p 'fro' or 2 (the root of the sum of squares) or
        1 (the sum of magnitudes), over dims or all."""
        p = args[1] if len(args) > 1 else kwargs.get("p", "fro")
        dims = dims_of(args[2] if len(args) > 2 else kwargs.get("dim"))
        keepdim = bool(args[3] if len(args) > 3 else kwargs.get("keepdim", False))
        x = self.name(args[0])
        if dims is None:
            dims = list(range(self.result(args[0]).dim()))
        if p == 1:
            magnitude = self.emit("abs", [x], node.name + "_abs")
            return self.emit("sum", [magnitude], node.name, dims=dims, keepdim=keepdim)
        if p not in ("fro", 2, 2.0):
            raise Refused(f"torch.norm with p = {p!r}")
        squares = self.emit("pow", [x], node.name + "_squares", exponent=2.0)
        total = self.emit("sum", [squares], node.name + "_sum", dims=dims, keepdim=keepdim)
        return self.emit("sqrt", [total], node.name)

    def global_average(self, node, size):
        """An adaptive average pool to one element per channel: the mean
        over the spatial dims, kept."""
        sizes = size if isinstance(size, (tuple, list)) else [size]
        if any(s != 1 for s in sizes):
            raise Refused(f"adaptive average pool to {size}, not 1")
        rank = self.result(node.args[0]).dim()
        return self.emit("mean", [self.name(node.args[0])], node.name, dims=list(range(2, rank)), keepdim=True)

    def kl_div(self, node, args, kwargs):
        """F.kl_div(input, target, reduction="batchmean"): the sum of
        target * (log target - input), divided by the batch."""
        if kwargs.get("reduction", "mean") != "batchmean" or kwargs.get("log_target", False):
            raise Refused("kl_div other than reduction='batchmean' with probabilities as targets")
        x, target = args[0], args[1]
        name = node.name
        log_target = self.emit("log", [self.name(target)], name + "_log_target")
        difference = self.emit("subtract", [log_target, self.name(x)], name + "_difference")
        terms = self.emit("multiply", [self.name(target), difference], name + "_terms")
        total = self.emit("sum", [terms], name + "_total", dims=list(range(self.result(x).dim())))
        batch = self.fit(lambda run: int(run.seen[x.name][2].shape[0]))
        return self.emit("scale", [total], name, value=1.0, divisor=batch)

    def triplet_margin(self, node, module):
        """nn.TripletMarginLoss: the mean of max(d(a, p) - d(a, n) + margin,
        0), d the p-norm of a - b + eps over the last dim."""
        if module.p != 2 or module.swap or module.reduction != "mean":
            raise Refused("TripletMarginLoss other than p = 2, no swap, the mean")
        anchor, positive, negative = (self.name(a) for a in node.args[:3])
        name = node.name

        def distance(other, label):
            difference = self.emit("subtract", [anchor, other], f"{name}_{label}_difference")
            shifted = self.emit("shift", [difference], f"{name}_{label}_shifted", value=float(module.eps))
            squares = self.emit("pow", [shifted], f"{name}_{label}_squares", exponent=2.0)
            total = self.emit("sum", [squares], f"{name}_{label}_sum", dims=[-1])
            return self.emit("sqrt", [total], f"{name}_{label}")

        gap = self.emit("subtract", [distance(positive, "positive"), distance(negative, "negative")], name + "_gap")
        margin = self.emit("shift", [gap], name + "_margin", value=float(module.margin))
        hinge = self.emit("clamp", [margin], name + "_hinge", low=0.0)
        return self.emit("mean", [hinge], name, dims=list(range(self.result(node.args[0]).dim() - 1)))

    def einsum(self, node, args):
        """An einsum that is a matmul: "...ij,jk->...ik" in any letters."""
        equation = args[0].replace(" ", "")
        operands = args[1:] if len(args) > 2 else args[1]
        match = re.fullmatch(r"([a-z]+),([a-z]{2})->([a-z]+)", equation)
        if match and len(operands) == 2:
            a, b, out = match.groups()
            if a[-1] == b[0] and out == a[:-1] + b[1] and len(set(a + b[1])) == len(a) + 1:
                return self.emit("matmul", [self.name(operands[0]), self.name(operands[1])], node.name)
        raise Refused(f"einsum '{equation}' is not a matmul this importer translates")

    def cross_entropy(self, node, args, kwargs):
        logits, targets = args[0], args[1]
        if kwargs.get("reduction", "mean") != "mean" or kwargs.get("weight") is not None or kwargs.get(
                "label_smoothing", 0.0):
            raise Refused("cross_entropy other than the mean over integer targets")
        if self.result(logits).dim() != 2:
            raise Refused("cross_entropy of other than [N, C] logits")
        name = node.name
        log_p = self.emit("log_softmax", [self.name(logits)], name + "_log_p", dim=1)
        picks = self.emit("reshape", [self.name(targets)], name + "_picks",
                          shape=[self.fit(lambda run: int(run.seen[targets.name][2].shape[0])), 1])
        picked = self.emit("gather", [log_p, picks], name + "_picked", dim=1)
        mean = self.emit("mean", [picked], name + "_mean", dims=[0, 1])
        return self.emit("scale", [mean], name, value=-1.0)

    def module_call(self, node, module):
        name = node.name
        x = self.name(node.args[0])
        prefix = node.target + "."
        if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d,
                               nn.ConvTranspose3d)):
            if module.padding_mode != "zeros" or isinstance(module.padding, str):
                raise Refused(f"{type(module).__name__} with padding {module.padding!r} ({module.padding_mode})")
            operands = [x] + self.weight_and_bias(prefix, module)
            attributes = {"stride": list(module.stride), "padding": list(module.padding),
                          "dilation": list(module.dilation), "groups": module.groups}
            transposed = isinstance(module, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d))
            if transposed:
                attributes["output_padding"] = list(module.output_padding)
            attributes = self.fitted_attributes(node.target, attributes)
            return self.emit("conv_transpose" if transposed else "conv", operands, name, **attributes)
        if isinstance(module, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)):
            if getattr(module, "ceil_mode", False) or getattr(module, "return_indices", False):
                raise Refused(f"{type(module).__name__} with ceil_mode or return_indices")
            rank = self.result(node.args[0]).dim() - 2
            spread = lambda v: list(v) if isinstance(v, (tuple, list)) else [v] * rank
            attributes = {"kernel": spread(module.kernel_size), "stride": spread(module.stride or module.kernel_size),
                          "padding": spread(module.padding)}
            if isinstance(module, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)):
                attributes["dilation"] = spread(module.dilation)
                return self.emit("max_pool", [x], name, **self.fitted_attributes(node.target, attributes))
            if getattr(module, "divisor_override", None):
                raise Refused("avg_pool with divisor_override")
            return self.emit("avg_pool", [x], name, count_include_pad=bool(module.count_include_pad),
                             **self.fitted_attributes(node.target, attributes))
        if isinstance(module, nn.Linear):
            return self.emit("linear", [x] + self.weight_and_bias(prefix, module), name)
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.InstanceNorm1d, nn.InstanceNorm2d,
                               nn.InstanceNorm3d, nn.GroupNorm, nn.LayerNorm)):
            return self.norm(node, module, x, prefix)
        # nn.ReLU, nn.SiLU, ...: the module of each number-free activation
        # is its function's name capitalised.
        if type(module).__module__.startswith("torch.nn") and type(module).__name__.lower() in ACTIVATIONS:
            return self.emit(ACTIVATIONS[type(module).__name__.lower()], [x], name)
        if isinstance(module, nn.GELU):
            return self.emit("gelu_tanh" if module.approximate == "tanh" else "gelu", [x], name)
        if isinstance(module, nn.Hardtanh):
            return self.emit("hardtanh", [x], name, min_val=module.min_val, max_val=module.max_val)
        if isinstance(module, (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d)):
            return self.global_average(node, module.output_size)
        if isinstance(module, nn.LeakyReLU):
            return self.emit("leaky_relu", [x], name, negative_slope=module.negative_slope)
        if isinstance(module, (nn.Softmax, nn.LogSoftmax)):
            return self.emit("softmax" if isinstance(module, nn.Softmax) else "log_softmax", [x], name, dim=module.dim)
        if isinstance(module, nn.Dropout):
            refuse_dropout(module.p)
            return x
        if isinstance(module, nn.TripletMarginLoss):
            return self.triplet_margin(node, module)
        if isinstance(module, nn.Flatten):
            return self.emit("reshape", [x], name, shape=self.extents(node))
        raise Refused(f"no kernelgate op for the module {type(module).__name__}")

    def norm(self, node, module, x, prefix):
        name = node.name
        if not module.training:
            raise Refused(f"{type(module).__name__} in eval mode")
        affine = getattr(module, "affine", getattr(module, "elementwise_affine", False))
        operands = [x] + (self.weight_and_bias(prefix, module) if affine else [])
        attributes = {"eps": module.eps}
        if isinstance(module, nn.LayerNorm):
            attributes["normalized_shape"] = [
                self.fit(lambda run, d=d: int(run.model.get_submodule(node.target).normalized_shape[d]))
                for d in range(len(module.normalized_shape))]
            return self.emit("layer_norm", operands, name, **attributes)
        if isinstance(module, nn.GroupNorm):
            attributes["num_groups"] = self.fit(lambda run: int(run.model.get_submodule(node.target).num_groups))
            return self.emit("group_norm", operands, name, **attributes)
        if isinstance(module, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)):
            if module.track_running_stats:
                raise Refused("instance_norm with running statistics")
            return self.emit("instance_norm", operands, name, **attributes)
        return self.emit("batch_norm", operands, name, **attributes)

    def weight_and_bias(self, prefix, module):
        """A module's weight and, where it has one, its bias, as parameters."""
        operands = [self.parameter(prefix + "weight", module)]
        if getattr(module, "bias", None) is not None:
            operands.append(self.parameter(prefix + "bias", module))
        return operands

    def fitted_attributes(self, target, attributes):
        """Integer attributes of a module as expressions where they follow a
        constant (a kernel_size axis), else as the values they are."""
        fitted = {}
        for key, value in attributes.items():
            if isinstance(value, list):
                fitted[key] = [self.fit(lambda run, key=key, d=d, n=len(value): module_attribute(run, target, key, n)[d])
                               for d in range(len(value))]
            else:
                fitted[key] = self.fit(lambda run, key=key: module_attribute(run, target, key))
        return fitted


# The element-wise arithmetic of two operands, by the name PyTorch calls it
# (an operator's dunder stripped); rsubtract is the number minus the tensor.
BINARY = {"add": "add", "radd": "add", "sub": "subtract", "rsub": "rsubtract", "mul": "multiply", "rmul": "multiply",
          "truediv": "divide", "div": "divide", "multiply": "multiply", "subtract": "subtract", "divide": "divide"}


def number_ops(kind, x, number, tensor_first, output):
    """The ops of tensor `x` and a number under BINARY's `kind` (the tensor
    the first operand when tensor_first): shift or scale, a negation first
    for a number minus the tensor. A number divided by a tensor is refused."""
    if kind == "add":
        return [{"op": "shift", "inputs": [x], "output": output, "value": number}]
    if kind == "multiply":
        return [{"op": "scale", "inputs": [x], "output": output, "value": number}]
    if kind == "divide" and tensor_first:
        return [{"op": "scale", "inputs": [x], "output": output, "value": 1.0 / number}]
    if kind == "subtract" and tensor_first:
        return [{"op": "shift", "inputs": [x], "output": output, "value": -number}]
    if kind in ("subtract", "rsubtract"):
        return [{"op": "scale", "inputs": [x], "output": output + "_negated", "value": -1.0},
                {"op": "shift", "inputs": [output + "_negated"], "output": output, "value": number}]
    raise Refused("a number divided by a tensor is not translated")


def transposed_dims(name, rank):
    """The permutation of x.T and x.t() (every dim reversed) or x.mT (the
    last two swapped)."""
    if name == "mT":
        return list(range(rank - 2)) + [rank - 1, rank - 2]
    return list(range(rank))[::-1]


def refuse_dropout(p):
    """Dropout is random in training mode, as KernelBench runs modules:
    only p = 0 is a reference."""
    if p:
        raise Refused(f"dropout with p = {p} is random in training mode")


def argument(args, kwargs, position, keyword, default=None):
    """A call's argument, given by position or by keyword."""
    return args[position] if len(args) > position else kwargs.get(keyword, default)


# The activations without numbers, by the name PyTorch calls them.
ACTIVATIONS = {"relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh", "exp": "exp", "log": "log", "sqrt": "sqrt",
               "rsqrt": "rsqrt", "abs": "abs", "selu": "selu", "hardsigmoid": "hardsigmoid", "hardswish": "hardswish",
               "softsign": "softsign", "silu": "silu", "mish": "mish"}
# Those with numbers: each number's name, in the order PyTorch takes them, and its default.
ACTIVATION_SCALARS = {"leaky_relu": [("negative_slope", 0.01)], "elu": [("alpha", 1.0)],
                      "hardtanh": [("min_val", -1.0), ("max_val", 1.0)], "softplus": [("beta", 1.0), ("threshold", 20.0)]}

# What each function or method becomes: the names it is called by, and the
# Translation method that translates it.
FUNCTIONS = [
    (set(ACTIVATIONS) | set(ACTIVATION_SCALARS) | {"gelu"}, Translation.activation),
    ({"sum", "mean", "prod", "logsumexp", "amax", "amin"}, Translation.reduction),
    ({"max", "min"}, Translation.extreme),
    ({"argmax", "argmin"}, Translation.position),
    ({"softmax", "log_softmax", "cumsum", "cumprod"}, Translation.along_dim),
    ({"add", "sub", "mul", "truediv", "div", "__add__", "__sub__", "__mul__", "__truediv__", "__radd__", "__rsub__",
      "__rmul__", "multiply", "subtract", "divide"}, lambda self, node, key, args, kwargs: self.arithmetic(
        node, key.strip("_"), args)),
    ({"pow", "__pow__"}, Translation.power),
    ({"clamp", "clip"}, Translation.clamp),
    ({"matmul", "bmm", "mm"}, Translation.matmul),
    ({"linear"}, Translation.linear),
    ({"view", "reshape", "flatten", "squeeze", "unsqueeze"}, Translation.reshape),
    ({"permute", "transpose", "t", "getattr"}, Translation.permute),
    ({"triu", "tril", "diag"}, Translation.mask),
    ({"flip", "cat", "neg", "zeros_like", "dropout"}, Translation.other),
    ({"narrow", "select"}, lambda self, node, key, args, kwargs: self.narrow(node, key)),
    ({"norm"}, lambda self, node, key, args, kwargs: self.norm_of(node, args, kwargs)),
    ({"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"},
     lambda self, node, key, args, kwargs: self.global_average(node, argument(args, kwargs, 1, "output_size"))),
    ({"cross_entropy"}, lambda self, node, key, args, kwargs: self.cross_entropy(node, args, kwargs)),
    ({"smooth_l1_loss"}, Translation.smooth_l1_loss),
    ({"kl_div"}, lambda self, node, key, args, kwargs: self.kl_div(node, args, kwargs)),
    ({"einsum"}, lambda self, node, key, args, kwargs: self.einsum(node, args)),
    ({"scaled_dot_product_attention"}, Translation.attention),
]


def module_attribute(run, target, key, rank=None):
    """A module's integer attribute in one run; with a rank, one value per
    spatial dimension (a pool's single kernel size spread)."""
    module = run.model.get_submodule(target)
    names = {"kernel": "kernel_size"}
    value = getattr(module, names.get(key, key))
    if key == "stride" and value is None:
        value = module.kernel_size
    if isinstance(value, (tuple, list)):
        return [int(v) for v in value]
    return [int(value)] * rank if rank else int(value)


# ---------------------------------------------------------------- the suite

def problem_id(path):
    level = re.search(r"level(\d+)", str(path.parent))
    number = re.match(r"(\d+)_(.+)", path.stem)
    if not level or not number:
        raise Refused("the file is not named like KernelBench's level<N>/<number>_<name>.py")
    slug = re.sub(r"[^a-z0-9]+", "_", number.group(2).lower()).strip("_")
    return int(level.group(1)), int(number.group(1)), f"l{level.group(1)}_{int(number.group(1)):03d}_{slug}"


class Problem:
    """One problem file, traced at its constants and at every probe."""

    def __init__(self, path, benchmark="KernelBench"):
        self.path = path
        self.benchmark = benchmark  # whose convention the file follows, for the suite's origin
        self.level, self.number, self.id = problem_id(path)
        self.module = load_problem(path)
        self.constants = integer_constants(self.module)
        self.base = Observation(self.module, self.constants)
        for i, draw in enumerate(self.base.draws):
            if "unknown" in draw:
                raise Refused(f"get_inputs()[{i}] is no draw of torch.rand, torch.randn or torch.randint")
        # Each constant grown alone; one the module refuses to grow alone
        # is grown with the constants of its value (a batch that must equal
        # a row length for broadcasting, channels that are also the groups),
        # and they become one axis, the first's. What cannot grow stays a value.
        self.probes = {}
        self.tied = {}  # constant -> the axis it grows with
        tied = set()
        for c, value in self.constants.items():
            if c in tied:
                continue
            peers = [d for d, v in self.constants.items()
                     if v == value and d != c and d not in tied and d not in self.probes]
            # alone, then with one constant of its value, then with all of them
            for group in [[c]] + [[c, d] for d in peers] + ([[c] + peers] if len(peers) > 1 else []):
                runs = self.grown(group)
                if runs is not None:
                    break
            if runs is not None:
                self.probes[c] = runs
                tied.update(group[1:])
                self.tied.update({d: c for d in group[1:]})
        apply_constants(self.module, self.constants)
        self.axes_used = set()

    def grown(self, group):
        """The module at its constants with `group` grown by each factor of
        FACTORS (times 3 and 5, or where the module refuses that, as for a
        count of groups that must divide the channels, times 2 and 4); None
        when it refuses every pair."""
        for factors in FACTORS:
            runs = []
            for factor in factors:
                try:
                    grown = {c: self.constants[c] * factor for c in group}
                    runs.append(Observation(self.module, dict(self.constants, **grown), self.base.graph))
                except Exception:
                    break
            if len(runs) == len(factors):
                for run, factor in zip(runs, factors):
                    run.factor = factor
                return runs
        return None

    def constants_at(self, axes):
        """The module's constants at these axes, tied ones with their axis."""
        values = dict(self.constants, **axes)
        values.update({d: axes[c] for d, c in self.tied.items() if c in axes})
        return values

    def fit(self, value_of):
        expression, used = fit_extent(self.constants, self.base, self.probes, value_of)
        self.axes_used |= used
        return expression


def init_of(problem, key, module, tensor, fit_extents):
    """The draw of parameter `key` as PyTorch initialises it."""
    if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d,
                           nn.ConvTranspose3d, nn.Linear)):
        weight = fit_extents(key.rsplit(".", 1)[0] + ".weight")
        factors = [f"({e})" if isinstance(e, str) and " " in e else str(e) for e in weight[1:] if e != 1]
        fan_in = " * ".join(factors) or "1"
        return {"distribution": "uniform_fan_in", "fan_in": fan_in}
    if module is not None and key.endswith(".weight"):
        return {"distribution": "randint", "low": 1, "high": 2}  # ones
    if module is not None and key.endswith(".bias"):
        return {"distribution": "randint", "low": 0, "high": 1}  # zeros
    # A parameter of the module's own: nn.Parameter(torch.randn(shape) * 0.02).
    owned = dict(problem.base.model.named_parameters())
    draw = problem.base.construction.describe(owned[key]) if key in owned else {"unknown": True}
    if "factory" in draw and draw["dtype"] == "float32":
        return draw_init(problem, draw["factory"], "construction")
    if "built" in draw:
        return built_init(problem, key.replace(".", "_"), draw, owned[key], "construction")
    raise Refused(f"the parameter {key} is not one this importer knows how PyTorch draws")


def draw_init(problem, factory, which="recorder"):
    """A factory's distribution; randint's bounds fitted over the axes.
    `which` recorder drew it: get_inputs()'s, or the module's construction."""
    draw = getattr(problem.base, which).factories[factory]
    if draw["distribution"] in ("ones", "zeros"):  # the integers of [1, 2) or [0, 1)
        low = 1 if draw["distribution"] == "ones" else 0
        return {"distribution": "randint", "low": low, "high": low + 1}
    if draw["distribution"] == "uniform":
        return {"distribution": "uniform", "low": 0, "high": 1}
    if draw["distribution"] == "normal":
        return {"distribution": "normal", "mean": 0, "std": 1}
    return {"distribution": "randint",
            "low": problem.fit(lambda run: getattr(run, which).factories[factory]["low"]),
            "high": problem.fit(lambda run: getattr(run, which).factories[factory]["high"])}


def built_init(problem, name, draw, tensor, which="recorder"):
    """An input get_inputs() builds with ops after its draws (docs/inputs.md,
    "Inputs built by ops"): the draw of the tensor's own shape first, the
    other draws named, then the ops, the last making the tensor."""
    recorder = getattr(problem.base, which)
    records = [recorder.records[r] for r in draw["built"]]
    names = {}  # id(tensor) -> its name in the ops
    own, draws = None, []
    for record in records:
        for operand in list(record["args"]) + list(record["kwargs"].values()):
            kind, index = recorder.made.get(id(operand), (None, None)) if isinstance(operand, torch.Tensor) else (None, None)
            if kind != "draw" or id(operand) in names:
                continue
            if own is None and tuple(operand.shape) == tuple(tensor.shape):
                own = index
                names[id(operand)] = "drawn"
            else:
                names[id(operand)] = f"draw{index}"
                shape = [problem.fit(lambda run, index=index, d=d: int(getattr(run, which).factories[index]["shape"][d]))
                         for d in range(len(operand.shape))] or [1]
                draws.append(dict(draw_init(problem, index, which), name=f"draw{index}", shape=shape))
    if own is None:
        raise Refused(f"get_inputs() builds {name} from no draw of its own shape")
    ops = []
    for position, record in enumerate(records):
        last = position == len(records) - 1
        if record["name"] in ("float", "contiguous") and not last:  # the same values
            names[id(record["result"])] = names[id(record["args"][0])]
            continue
        output = name if last else f"{name}_{position}"
        ops.extend(then_ops(record, names, output))
        names[id(record["result"])] = output
    init = draw_init(problem, own, which)
    if draws:
        init["draws"] = draws
    init["then"] = ops
    return init


def then_ops(record, names, output):
    """One op get_inputs() applies after a draw, as ops of the library."""
    name, args, kwargs = record["name"].strip("_"), record["args"], record["kwargs"]

    def tensor(value):
        if not isinstance(value, torch.Tensor) or id(value) not in names:
            raise Refused(f"get_inputs() applies {name} to something other than its draws")
        return names[id(value)]

    if name in ("float", "contiguous"):
        return [{"op": "scale", "inputs": [tensor(args[0])], "output": output, "value": 1.0}]
    if name in ("T", "t", "mT"):
        return [{"op": "permute", "inputs": [tensor(args[0])], "output": output,
                 "dims": transposed_dims(name, args[0].dim())}]
    if name in ("softmax", "log_softmax"):
        dim = args[1] if len(args) > 1 else kwargs["dim"]
        return [{"op": name, "inputs": [tensor(args[0])], "output": output, "dim": dim}]
    if name in ("triu", "tril"):
        diagonal = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
        return [{"op": name, "inputs": [tensor(args[0])], "output": output, "diagonal": diagonal}]
    if name not in BINARY or len(args) != 2:
        raise Refused(f"get_inputs() builds an input with {name}, which this importer does not translate")
    kind, a, b = BINARY[name], args[0], args[1]
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if kind == "rsubtract":
            a, b, kind = b, a, "subtract"
        return [{"op": kind, "inputs": [tensor(a), tensor(b)], "output": output}]
    x, number = (a, float(b)) if isinstance(a, torch.Tensor) else (b, float(a))
    return number_ops(kind, tensor(x), number, x is a, output)


def write_suite(problem, translation):
    base = problem.base
    state = dict(base.model.state_dict())
    fitted = {}

    def fit_extents(key):
        if key not in fitted:
            rank = state[key].dim()
            fitted[key] = [problem.fit(lambda run, d=d: int(run.model.state_dict()[key].shape[d]))
                           for d in range(rank)]
        return fitted[key]

    tensors = []
    placeholders = [n for n in base.graph.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(base.inputs):
        raise Refused(f"forward takes {len(placeholders)} tensors, get_inputs() makes {len(base.inputs)}")
    for i, (node, draw) in enumerate(zip(placeholders, base.draws)):
        if "number" in draw:
            continue  # a number get_inputs() gives: the ops took it as a value
        shape = [problem.fit(lambda run, i=i, d=d: int(run.inputs[i].shape[d])) for d in range(base.inputs[i].dim())]
        if not shape:
            raise Refused(f"input {node.target} is a scalar tensor")
        entry = {"name": node.target, "role": "input", "source": f"get_inputs()[{i}]", "shape": shape}
        if draw["dtype"] != "float32":
            entry["dtype"] = draw["dtype"]
        if "built" in draw:
            entry["init"] = built_init(problem, node.target, draw, base.inputs[i])
        else:
            entry["init"] = draw_init(problem, draw["factory"])
        tensors.append(entry)
    for name, (key, module) in translation.parameters.items():
        if key not in state:
            raise Refused(f"the forward pass reads {key}, which is not in the state_dict")
        tensors.append({"name": name, "role": "parameter", "source": key, "shape": fit_extents(key),
                        "init": init_of(problem, key, module, state[key], fit_extents)})
    output = {"name": translation.ops[-1]["output"], "role": "output"}
    if translation.output_dtype is torch.int64:
        output["dtype"] = "int64"
    elif translation.output_dtype is not torch.float32:
        raise Refused(f"the output is {translation.output_dtype}")
    tensors.append(output)
    # An axis that sizes a declared tensor is at least 1; one that only an
    # op's attribute reads (padding) may be 0.
    sizing = {name for tensor in tensors for extent in tensor.get("shape", [])
              for name in re.findall(r"[A-Za-z_]\w*", str(extent))}
    axes = {c: {"default": v, "min": 1 if c in sizing else 0, "max": AXIS_MAX, "description": f"the module's {c}"}
            for c, v in problem.constants.items() if c in problem.axes_used}
    doc = (problem.module.Model.__doc__ or "").strip().splitlines()
    return {
        "kind": "kernelgate-suite", "schema_version": 1, "id": problem.id,
        "title": doc[0].strip() if doc else problem.path.stem,
        "origin": {"benchmark": problem.benchmark, "level": problem.level, "problem": problem.number,
                   "file": f"level{problem.level}/{problem.path.name}", "module": "Model"},
        "axes": axes, "presets": {}, "tensors": tensors, "forward": translation.ops,
        "tolerance": TOLERANCE, "contract": {"no_mutation": True, "no_aliasing": True},
    }


def ci_preset(problem, suite):
    """Axes small enough that interpret mode runs a direct kernel in
    seconds, and that the module accepts: the largest axes first, each
    lowered to the smallest of 8, 16, 32, ... that the module still runs
    with, then below 8 while the tensors hold more than CI_ELEMENTS."""
    defaults = {a: spec["default"] for a, spec in suite["axes"].items()}

    def elements(preset):
        try:
            run = Observation(problem.module, problem.constants_at(preset), problem.base.graph)
        except Exception:
            return None
        finally:
            apply_constants(problem.module, problem.constants)
        return sum(int(np.prod(r[2].shape)) for r in run.seen.values() if isinstance(r[2], torch.Tensor))

    preset = {}
    order = sorted(defaults, key=lambda a: -defaults[a])
    for smaller in ((8, 16, 32, 64, 128, 256, 512, 1024), (4, 2, 1)):
        for axis in order:
            if smaller[0] < 8 and elements(preset) <= CI_ELEMENTS:
                break
            for value in smaller:
                if value < preset.get(axis, defaults[axis]) and elements(dict(preset, **{axis: value})) is not None:
                    preset[axis] = value
                    break
    if elements(preset) is None:
        raise Refused("no small preset of the axes that the module accepts")
    return preset


# ------------------------------------------------------------ the self-check

def dump_reference(suite, folder, kernelgate):
    """kernelgate's reference of `suite` at its ci preset, with the
    tensors it drew: (axes, arrays by tensor name)."""
    (folder / "suites").mkdir(parents=True, exist_ok=True)
    (folder / "suites" / f"{suite['id']}.json").write_text(json.dumps(suite, indent=1))
    dump = folder / "dump"
    done = subprocess.run([kernelgate, "reference", suite["id"], "--suites", str(folder / "suites"),
                           "--preset", "ci", "--dump", str(dump)], capture_output=True, text=True)
    if done.returncode != 0:
        raise Refused("kernelgate refuses the suite: " + (done.stderr.strip().splitlines() or ["?"])[-1])
    manifest = json.loads((dump / "manifest.json").read_text())
    return manifest["axes"], {t["name"]: np.load(dump / t["file"]) for t in manifest["tensors"]}


def torch_values(problem, suite, axes, arrays):
    """The module in float64 at these axes on kernelgate's tensors: every
    fx node's value, by node name, and the output."""
    apply_constants(problem.module, problem.constants_at(axes))
    try:
        model = problem.module.Model(*problem.module.get_init_inputs()).double()
    finally:
        apply_constants(problem.module, problem.constants)
    state = model.state_dict()
    inputs = []
    with torch.no_grad():
        for tensor in suite["tensors"]:
            array = arrays.get(tensor["name"])
            if tensor["role"] == "parameter":
                state[tensor["source"]].copy_(torch.from_numpy(array.astype(np.float64)))
            elif tensor["role"] == "input":
                inputs.append(torch.from_numpy(array if array.dtype.kind in "ib" else array.astype(np.float64)))
        for position, draw in enumerate(problem.base.draws):  # numbers get_inputs() gives, in place
            if "number" in draw:
                inputs.insert(position, draw["number"])
        run = Recorder.of(model, problem.base.graph, constant=lambda tensor: tensor.double())
        output = run.run(*inputs)
    return {name: result for name, (_, _, result) in run.seen.items()}, output


def disagreement(ours, want):
    """Why kernelgate's values are not torch's, or None when they agree:
    within SELF_CHECK_BOUND relative, or absolutely for values that are zero
    up to rounding (the mean of a normalised tensor). Also the agreement's
    text."""
    ours, want = np.asarray(ours, dtype=np.float64).reshape(-1), np.asarray(want, dtype=np.float64).reshape(-1)
    if ours.shape != want.shape:
        return f"{ours.size} elements against torch's {want.size}", None
    error = float(np.linalg.norm(ours - want) / max(np.linalg.norm(want), 1e-300))
    largest = float(np.max(np.abs(ours - want))) if ours.size else 0.0
    if error <= SELF_CHECK_BOUND:
        return None, f"{error:.1e} relative"
    if largest <= SELF_CHECK_BOUND:
        return None, f"{largest:.1e} absolute (an output zero up to rounding)"
    return f"{error:.3e} relative ({largest:.3e} at most)", None


def first_difference(problem, suite, values, folder, kernelgate):
    """The first op whose result is not torch's: the suite cut after each
    op in turn (its output that op's, the tensors it no longer reads left
    out), whose inputs are drawn the same (same workload, names and axes)."""
    for index, op in enumerate(suite["forward"]):
        want = values.get(op["output"])
        if not isinstance(want, torch.Tensor):
            continue  # an op of the importer's own (a negation before a shift): no node of torch's
        cut = dict(suite, forward=suite["forward"][:index + 1])
        read = {name for step in cut["forward"] for name in step["inputs"]}
        cut["tensors"] = [t for t in suite["tensors"] if t["role"] != "output" and t["name"] in read]
        cut["tensors"].append(dict({"name": op["output"], "role": "output"},
                                   **({"dtype": "int64"} if want.dtype == torch.int64 else {})))
        _, arrays = dump_reference(cut, folder / f"cut{index}", kernelgate)
        problem_text, _ = disagreement(arrays[op["output"]], want)
        if problem_text:
            return f"forward[{index}] ({op['op']} -> {op['output']}) differs from torch's by {problem_text}"
    return "no single op differs; the output does"


def self_check(problem, suite, kernelgate):
    """kernelgate's float64 reference at ci against the module in float64;
    a disagreement names the first op that differs."""
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        check_default_shapes(problem, suite, folder, kernelgate)
        axes, arrays = dump_reference(suite, folder, kernelgate)
        values, output = torch_values(problem, suite, axes, arrays)
        problem_text, agreement = disagreement(arrays[suite["tensors"][-1]["name"]], output)
        if problem_text:
            raise Refused("kernelgate's reference differs from torch's float64 output: " +
                          first_difference(problem, suite, values, folder, kernelgate))
    return agreement


def check_default_shapes(problem, suite, folder, kernelgate):
    """Every tensor the forward pass makes, at the default axes, has the
    shape torch gives it (on the meta device): `kernelgate describe` lists
    them as "-> name [extents]"."""
    (folder / "suites").mkdir(parents=True, exist_ok=True)
    (folder / "suites" / f"{suite['id']}.json").write_text(json.dumps(suite, indent=1))
    done = subprocess.run([kernelgate, "describe", suite["id"], "--suites", str(folder / "suites")],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise Refused("kernelgate refuses the suite: " + (done.stderr.strip().splitlines() or ["?"])[-1])
    made = {name: [int(e) for e in extents.split(",") if e.strip()]
            for name, extents in re.findall(r"-> (\w+) \[([0-9, ]*)\]", done.stdout)}
    for name, (_, _, result) in problem.base.seen.items():
        if name in made and isinstance(result, torch.Tensor) and made[name] != list(result.shape):
            raise Refused(f"at the default axes kernelgate makes {name} {made[name]}, torch {list(result.shape)}")


def import_problem(path, out, kernelgate, benchmark):
    problem = Problem(path, benchmark)
    translation = Translation(problem.base.model, problem.base, problem.fit)
    translation.translate()
    suite = write_suite(problem, translation)
    suite["presets"] = {"ci": ci_preset(problem, suite)}
    agreement = self_check(problem, suite, kernelgate)
    (out / f"{suite['id']}.json").write_text(json.dumps(suite, indent=2) + "\n")
    return suite["id"], agreement


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the suites (created if missing)")
    parser.add_argument("--summary", required=True, help="JSON file: one entry per problem")
    parser.add_argument("--kernelgate", default=str(ROOT / "build" / "cpu" / "bin" / "kernelgate"),
                        help="the kernelgate binary whose reference the suites are checked with")
    parser.add_argument("--benchmark", default="KernelBench",
                        help="the suites' origin.benchmark: KernelBench, or whose module in its convention it is")
    parser.add_argument("problems", nargs="+", help="KernelBench problem files (level<N>/<number>_<name>.py)")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not pathlib.Path(args.kernelgate).is_file():
        sys.exit(f"--kernelgate {args.kernelgate}: no such file (build the cpu preset first)")
    summary = []
    torch.set_default_dtype(torch.float32)
    for file in args.problems:
        path = pathlib.Path(file)
        entry = {"file": str(path), "id": None, "status": "refused", "reason": ""}
        try:
            entry["id"], agreement = import_problem(path, out, args.kernelgate, args.benchmark)
            entry["status"] = "imported"
            entry["reason"] = f"reference agrees with torch float64 to {agreement} at ci"
        except Refused as refusal:
            entry["reason"] = str(refusal)
        except Exception as error:  # a construct the tracer or a probe did not expect
            entry["reason"] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        print(f"{entry['status']:8s} {path.name}: {entry['reason']}", flush=True)
        summary.append(entry)
    pathlib.Path(args.summary).write_text(json.dumps(summary, indent=2) + "\n")
    imported = sum(e["status"] == "imported" for e in summary)
    print(f"{imported} of {len(summary)} imported")


if __name__ == "__main__":
    main()
