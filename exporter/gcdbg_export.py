#!/usr/bin/env python3
"""gcdbg-export: turn a PyTorch model (nn.Module or function) plus example inputs into a
gcdbg trace file (format "gcdbg.trace", version 1; see docs/exporter.md).

Library use:

    from gcdbg_export import export
    export(model_or_fn, (x,), "mlp", "mlp.json", train=True)

CLI use:

    /usr/bin/python3 exporter/gcdbg_export.py MODEL.py -o OUT.json

where MODEL.py defines make() returning (model_or_fn, example_inputs) or a dict
{"model":..., "inputs":..., "name":..., "train":..., "graph_breaks":..., "method":...}.

Two capture paths:
  * "fx"     (default; PyTorch 1.13+): torch.fx symbolic tracing with stack traces recorded.
  * "dynamo" (PyTorch 2.x; tested with 2.6): torch.compile with a recording backend, one graph per
             graph break, each with its own guards.
  * "aten"   (PyTorch 2.x; tested with 2.6): the same, recording AOTAutograd's aten-level
             inference graphs (functionalized torch.ops.aten.* graphs, what Inductor receives).
"""

import argparse
import base64
import builtins
import importlib.util
import inspect
import json
import math
import operator
import os
import re
import statistics
import sys
import time
import warnings


# How the exporter times PyTorch (the trace's timing, which `gcdbg run` shows as the
# recorded time): in the environment `gcdbg bench` gives both of its sides, so that the
# recorded time is PyTorch at its best and not inflated by the machine's defaults.
# glibc keeps freed big blocks (MALLOC_*_THRESHOLD_, as bench_eager.py's MALLOC_ENV);
# on 4 CPUs or fewer OpenMP threads sleep when idle and OpenBLAS's stop spinning
# after 2^4 cycles (compiler.OpenMPEnv's rule, compiler/ompenv.go: its default
# policies ran a ViT step 5x slower on 2 cores, 1.6-2.1 s against 0.26-0.34 s).
# All are read when the process starts (libgomp and OpenBLAS at load), so the
# script re-executes itself with the missing ones set before importing torch; a
# variable the user set is kept. None of them changes a value.
def timing_env(environ, ncpu):
    want = {"MALLOC_MMAP_THRESHOLD_": str(1 << 34), "MALLOC_TRIM_THRESHOLD_": str(1 << 34)}
    if ncpu <= 4:
        want["OMP_WAIT_POLICY"] = "passive"
        want["OPENBLAS_THREAD_TIMEOUT"] = "4"
    return {k: v for k, v in want.items() if k not in environ}


def _cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity call (not Linux)
        return os.cpu_count() or 1


def timing_threads():
    """OMP_NUM_THREADS when set, else the CPUs this process may run on (as the compiled
    side's OpenMP, compiler.OpenMPEnv)."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
    except ValueError:
        n = 0
    return n if n > 0 else _cpus()


if __name__ == "__main__":
    _missing = timing_env(os.environ, _cpus())
    if _missing:
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:],
                  dict(os.environ, **_missing))

import torch  # noqa: E402
import torch.fx  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.fx.node import Node, _get_qualified_name  # noqa: E402
from torch.fx.passes.shape_prop import ShapeProp  # noqa: E402

try:
    import gcdbg_gradmode  # sibling module: grad mode (torch.no_grad) inside a traced forward
except ImportError:
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    import gcdbg_gradmode
import gcdbg_modcheck  # noqa: E402  modules refused before tracing (hooks, LSTM dropout)
import gcdbg_selfcheck  # noqa: E402  is the reference run reproducible (expected.unstable)

TOOL = "gcdbg-export 0.1"

# torch dtype -> (trace dtype name, safetensors code, element size)
_DTYPES = {
    torch.float32: ("float32", "F32", 4),
    torch.float64: ("float64", "F64", 8),
    torch.float16: ("float16", "F16", 2),
    torch.bfloat16: ("bfloat16", "BF16", 2),
    torch.int64: ("int64", "I64", 8),
    torch.int32: ("int32", "I32", 4),
    torch.int8: ("int8", "I8", 1),
    torch.uint8: ("uint8", "U8", 1),
    torch.bool: ("bool", "BOOL", 1),
}


def dtype_name(dt):
    """Trace name of a torch.dtype (e.g. torch.float32 -> "float32"); any dtype, even ones a
    TENSOR cannot hold, is named by its torch spelling."""
    if dt in _DTYPES:
        return _DTYPES[dt][0]
    return str(dt).replace("torch.", "")


# ---------------------------------------------------------------------------------------------
# ARG encoding


class EncodeError(TypeError):
    pass


def _enc_float(f):
    if math.isnan(f):
        return {"float": "nan"}
    if math.isinf(f):
        return {"float": "inf" if f > 0 else "-inf"}
    return float(f)


def encode_arg(a, list_matters=False):
    """Encode a torch.fx argument as an ARG (contract table "ARG").

    list_matters: when true (inside the index of operator.getitem/setitem), Python lists are
    written as {"list": [...]}; elsewhere lists and tuples both become JSON arrays."""
    if isinstance(a, Node):
        return {"node": a.name}
    if a is None or isinstance(a, (bool, str)):
        return a
    if isinstance(a, int):
        return int(a)
    if isinstance(a, float):
        return _enc_float(a)
    if isinstance(a, torch.dtype):
        return {"dtype": dtype_name(a)}
    if isinstance(a, torch.device):
        return {"device": str(a)}
    if isinstance(a, slice):
        return {"slice": [encode_arg(a.start), encode_arg(a.stop), encode_arg(a.step)]}
    if a is Ellipsis:
        return {"ellipsis": True}
    if isinstance(a, torch.Size):
        return [int(v) for v in a]
    if isinstance(a, tuple):
        return [encode_arg(v, list_matters) for v in a]
    if isinstance(a, list):  # includes torch.fx immutable_list
        items = [encode_arg(v, list_matters) for v in a]
        return {"list": items} if list_matters else items
    if isinstance(a, dict):
        return {str(k): encode_arg(v, list_matters) for k, v in a.items()}
    if isinstance(a, (torch.memory_format, torch.layout)):
        # not in the v1 ARG table; written as its torch spelling (a plain string)
        return str(a)
    raise EncodeError("cannot encode argument %r of type %s as a trace ARG" % (a, type(a).__name__))


def encode_value(v):
    """Encode a non-tensor result for meta.value (ints, floats, bools, lists of them)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return _enc_float(v)
    if isinstance(v, (tuple, list, torch.Size)):
        return [encode_value(x) for x in v]
    return encode_arg(v)


def target_name(node):
    """The node's target as the contract wants it."""
    if node.op == "call_function":
        name = _get_qualified_name(node.target)
        if name.startswith("_operator."):
            name = "operator." + name[len("_operator."):]
        elif "." not in name and getattr(builtins, name, None) is node.target:
            name = "builtins." + name
        return name
    return str(node.target)


# ---------------------------------------------------------------------------------------------
# modules

_MODULE_ATTRS = [
    "in_features", "out_features", "in1_features", "in2_features",
    "in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups",
    "padding_mode", "output_padding",
    "num_features", "eps", "momentum", "affine", "track_running_stats",
    "normalized_shape", "elementwise_affine", "num_groups", "num_channels",
    "num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
    "scale_grad_by_freq", "sparse", "mode", "include_last_offset",
    "approximate", "dim", "p", "inplace", "start_dim", "end_dim", "unflattened_size",
    "ceil_mode", "output_size", "return_indices", "count_include_pad", "divisor_override",
    "negative_slope", "min_val", "max_val", "beta", "threshold", "value", "lambd", "alpha",
    "num_parameters", "scale_factor", "size", "align_corners", "upscale_factor",
    "downscale_factor", "embed_dim", "num_heads", "batch_first", "head_dim", "dropout",
    "lower", "upper",
    "reduction", "ignore_index", "label_smoothing", "delta", "log_target", "k", "blank", "zero_infinity",
    "input_size", "hidden_size", "bias", "nonlinearity", "kdim", "vdim", "add_zero_attn",
    "recompute_scale_factor", "num_layers", "bidirectional", "proj_size",
]


def module_type_name(m):
    cls = type(m)
    if getattr(torch.nn, cls.__name__, None) is cls:
        return "torch.nn." + cls.__name__
    return cls.__module__ + "." + cls.__qualname__


def _attr_json(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v, True
    if isinstance(v, int):
        return int(v), True
    if isinstance(v, float):
        return _enc_float(v), True
    if isinstance(v, (tuple, list, torch.Size)):
        out = []
        for x in v:
            j, ok = _attr_json(x)
            if not ok:
                return None, False
            out.append(j)
        return out, True
    return None, False


def module_attrs(m):
    attrs = {}
    for k in _MODULE_ATTRS:
        if k not in m.__dict__:  # constructor attributes are plain instance attributes
            continue
        v = m.__dict__[k]
        if isinstance(v, (torch.Tensor, torch.nn.Module)) or callable(v):
            continue
        j, ok = _attr_json(v)
        if ok:
            attrs[k] = j
    return attrs


# ---------------------------------------------------------------------------------------------
# tensors


def tensor_bytes(t):
    t = t.detach().to("cpu").contiguous()
    if t.dtype not in _DTYPES:
        raise EncodeError("tensor dtype %s is not a trace dtype" % t.dtype)
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    b = t.numpy().tobytes()
    if sys.byteorder != "little":
        raise EncodeError("big-endian hosts are not supported")
    return b


class TensorStore:
    """Collects TENSOR entries; large ones go to a safetensors sidecar."""

    def __init__(self, out_path, name, inline_limit_bytes):
        self.dir = os.path.dirname(os.path.abspath(out_path))
        # named after OUT, not the trace's name: two exports of one model (two seeds, -o s0.json
        # and -o s1.json) in one folder wrote one NAME.safetensors, the second overwriting the
        # tensors the first trace points at (examples/review8, helper-89); gcdbg watch looks for
        # the sidecar under OUT's stem too
        self.sidecar = os.path.splitext(os.path.basename(out_path))[0] + ".safetensors"
        self.limit = inline_limit_bytes
        self.blobs = []  # (key, dtype code, shape, bytes)
        self.keys = set()

    def tensor(self, t, key, requires_grad=False):
        b = tensor_bytes(t)
        name, code, _ = _DTYPES[t.dtype]
        entry = {"dtype": name, "shape": [int(s) for s in t.shape]}
        if len(b) > self.limit:
            if key in self.keys:
                raise ValueError("duplicate sidecar key %r" % key)
            self.keys.add(key)
            self.blobs.append((key, code, entry["shape"], b))
            entry["file"] = self.sidecar
            entry["key"] = key
        else:
            entry["data"] = base64.b64encode(b).decode("ascii")
        if requires_grad:
            entry["requires_grad"] = True
        return entry

    def write(self):
        path = os.path.join(self.dir, self.sidecar)
        if not self.blobs:
            if os.path.exists(path):
                os.remove(path)
            return None
        header = {"__metadata__": {"format": "pt", "producer": TOOL}}
        off = 0
        for key, code, shape, b in self.blobs:
            header[key] = {"dtype": code, "shape": shape, "data_offsets": [off, off + len(b)]}
            off += len(b)
        hj = json.dumps(header, separators=(",", ":")).encode("utf-8")
        hj += b" " * ((8 - len(hj) % 8) % 8)
        with open(path, "wb") as f:
            f.write(len(hj).to_bytes(8, "little"))
            f.write(hj)
            for _, _, _, b in self.blobs:
                f.write(b)
        return path


# ---------------------------------------------------------------------------------------------
# stack traces

_FRAME_RE = re.compile(r'^\s*File "(.*)", line (\d+), in (.*)$')


def parse_stack(text, user_files, innermost_first):
    """Parse a Python traceback text into FRAMEs (outermost first), keeping user frames only."""
    if not text:
        return []
    frames = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FRAME_RE.match(lines[i])
        if not m:
            i += 1
            continue
        code = ""
        if i + 1 < len(lines) and not _FRAME_RE.match(lines[i + 1]):
            code = lines[i + 1].strip()
            i += 1
        frames.append((m.group(1), int(m.group(2)), m.group(3), code))
        i += 1
    if innermost_first:
        frames.reverse()
    out = []
    for f, line, func, code in frames:
        if not _is_user_file(f, user_files):
            continue
        out.append({"file": os.path.basename(f), "line": line, "func": func, "code": code})
    return out


_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_THIS_FILE = os.path.abspath(__file__)


def _is_user_file(path, user_files):
    ap = os.path.abspath(path)
    if user_files:
        return ap in user_files or os.path.realpath(ap) in user_files
    if ap.startswith(_TORCH_DIR) or ap == _THIS_FILE or path.startswith("<"):
        return False
    return "site-packages" not in ap and "dist-packages" not in ap and "/lib/python" not in ap


def frame_at(fn, pattern):
    """A FRAME for the first line of fn's source containing `pattern` (used for break stacks)."""
    lines, start = inspect.getsourcelines(fn)
    for i, l in enumerate(lines):
        if pattern in l:
            return {"file": os.path.basename(inspect.getsourcefile(fn)), "line": start + i,
                    "func": fn.__name__, "code": l.strip()}
    raise ValueError("pattern %r not found in %s" % (pattern, fn.__name__))


def _source_file_of(obj):
    try:
        target = obj if not isinstance(obj, torch.nn.Module) else type(obj)
        return os.path.abspath(inspect.getsourcefile(target))
    except (TypeError, OSError):
        return None


# ---------------------------------------------------------------------------------------------
# capture + meta


def _unpack_count(frame):
    """The count of an UNPACK_SEQUENCE being executed in frame, or None."""
    import dis
    for i in dis.get_instructions(frame.f_code):
        if i.offset == frame.f_lasti:
            return i.argval if i.opname == "UNPACK_SEQUENCE" else None
    return None


# A node's meta value while fx traces (node.meta["gcdbg_meta"]): what it computes on the 'meta'
# device, from the example inputs' dtypes and shapes (_StackTracer._meta_value). It answers what
# is static in the graph and Python needs while tracing, as Dynamo answers it: a tensor's dtype
# (torch.finfo(s.dtype).min, the mask fill of Hugging Face and ESPnet attention) and rank
# (guided-diffusion's `while len(e.shape) < len(h.shape)`, `B, *rest = x.shape`). Sizes stay
# traced values. _NO_META where it is not known (an op without a meta kernel, an input not given).
_NO_META = object()


class _MetaUnknown(Exception):
    pass


def _to_meta(v):
    """v with every proxy replaced by its node's meta value and every tensor moved to the meta
    device; _MetaUnknown where a proxy's is not known."""
    if isinstance(v, torch.fx.Proxy):
        m = v.node.meta.get("gcdbg_meta", _NO_META)
        if m is _NO_META:
            raise _MetaUnknown()
        return m
    if isinstance(v, torch.Tensor):
        if v.is_meta:
            return v
        m = v.detach().to("meta")
        return m.requires_grad_() if v.requires_grad and m.is_floating_point() else m
    if isinstance(v, torch.Size):
        return v
    if isinstance(v, (list, tuple)):
        out = [_to_meta(x) for x in v]
        return out if isinstance(v, list) else tuple(out)
    if isinstance(v, dict):
        return {k: _to_meta(x) for k, x in v.items()}
    if isinstance(v, slice):
        return slice(_to_meta(v.start), _to_meta(v.stop), _to_meta(v.step))
    return v


def _requires_grad(args):
    """Whether a tensor among args requires grad (a traced one by its meta value; one whose meta
    value is not known is taken to)."""
    for a in args:
        if isinstance(a, torch.fx.Proxy):
            m = a.node.meta.get("gcdbg_meta", _NO_META) if not isinstance(a, torch.fx.proxy.Attribute) else _NO_META
            if m is _NO_META or (isinstance(m, torch.Tensor) and m.requires_grad):
                return True
        elif isinstance(a, torch.Tensor) and a.requires_grad:
            return True
    return False


class _PassThroughCheckpoint:
    """torch.utils.checkpoint's reentrant CheckpointFunction, as the exporter runs it: the
    function itself, once. Checkpointing recomputes the forward in the backward to save memory
    and gives the same values and gradients (its RNG state is replayed), but the reentrant
    function runs the forward under no_grad, which the tracer took for a no-grad block of the
    user's (a detach: every gradient before it lost), and torch.autograd.grad, which the
    reference run takes the gradients with, refuses it (examples/review9 finding 1). Where no
    input requires grad, PyTorch's reentrant checkpoint gives the function's parameters no
    gradient: that is kept, as a no_grad block."""

    @staticmethod
    def apply(function, preserve_rng_state, *args):
        if _requires_grad(args):
            return function(*args)
        with torch.no_grad():
            return function(*args)


def _checkpoint_through():
    """Run torch.utils.checkpoint's checkpoints as plain calls for the rest of the process
    (_PassThroughCheckpoint); the non-reentrant one (use_reentrant=False) too."""
    import torch.utils.checkpoint as ckpt
    if hasattr(ckpt, "CheckpointFunction"):
        ckpt.CheckpointFunction = _PassThroughCheckpoint
    if hasattr(ckpt, "_checkpoint_without_reentrant"):
        ckpt._checkpoint_without_reentrant = lambda function, preserve_rng_state=True, *args, **kwargs: function(*args, **kwargs)


def _meta_rank(p):
    """The rank of the tensor whose shape p is (x.shape, x.size()), or None."""
    if isinstance(p, torch.fx.proxy.Attribute) and p.attr == "shape":
        m = p.root.node.meta.get("gcdbg_meta", _NO_META) if isinstance(p.root, torch.fx.Proxy) else _NO_META
        return m.dim() if isinstance(m, torch.Tensor) else None
    if isinstance(p, torch.fx.Proxy) and not isinstance(p, torch.fx.proxy.Attribute):
        m = p.node.meta.get("gcdbg_meta", _NO_META)
        return len(m) if isinstance(m, torch.Size) else None
    return None


class _IterFix:
    """Tuple unpacking of a proxy (`B, T, C = x.shape`, `a, b = h.chunk(2)`) on Python 3.11+:
    torch 1.13 indexes the instruction list by f_lasti // 2, which CACHE entries break. A shape
    of known rank also unpacks with a star (`B, *rest = x.shape`) and iterates."""

    def __iter__(self):
        n = _unpack_count(inspect.currentframe().f_back)
        if n is None:
            n = _meta_rank(self)
        if n is not None:
            return (self[i] for i in range(n))
        return self.tracer.iter(self)

    def __len__(self):
        n = _meta_rank(self)
        if n is not None:
            return n
        return super().__len__()


class _Attribute(_IterFix, torch.fx.proxy.Attribute):
    """x.shape, x.T, ...: fx's Attribute with the unpacking fix."""


class _Proxy(_IterFix, torch.fx.Proxy):
    def __getattr__(self, k):
        if k == "dtype":
            m = self.node.meta.get("gcdbg_meta", _NO_META)
            if isinstance(m, torch.Tensor):
                return m.dtype
        return _Attribute(self, k)

    def __setitem__(self, key, value):
        """`labels[iou < 0.4] = 0`, `x[:, 0] = y`: torch 1.13's fx Proxy has no item assignment
        ("'Proxy' object does not support item assignment"); record the operator.setitem call
        Dynamo records, which gcdbg functionalizes (later reads of self see the write)."""
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})


def _reached_modules(fn):
    """nn.Modules a function reaches through its globals and closure, by name: a graph-break
    piece that calls a module held in a global (`proj(x)`) records it as a call_module."""
    out = {}
    code = getattr(fn, "__code__", None)
    if code is None:
        return out
    g = getattr(fn, "__globals__", {})
    for name in code.co_names:
        v = g.get(name)
        if isinstance(v, torch.nn.Module):
            out[name] = v
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, torch.nn.Module):
            out[name] = v
    return out


# the factory draws the tracer turns into graph nodes (torch.<name>)
_FACTORY_DRAWS = ("rand", "randn", "randperm")
# The deterministic factories it turns into graph nodes too (torch.<name>), the ones gcdbg has
# (ir/ops_shape.go, ir/ops_linspace.go). fx runs torch.arange(T) / torch.zeros(4, 8) /
# torch.linspace(0, 1, 5) of Python numbers while tracing and freezes the result into a
# _tensor_constant: right values, but gcdbg then computes nothing of it (a conformance sample of
# arange compared PyTorch's constant with itself), and the captured graph does not show the call
# Dynamo records. torch.empty of Python ints stays frozen (of a traced size it is a node:
# _TORCH_PROXY_ARGS): its values are unspecified (uninitialized memory),
# gcdbg's zeros would be one valid content and a comparison with PyTorch's garbage meaningless;
# torch.tensor too (its data is the constant).
_FACTORY_CALLS = ("arange", "zeros", "ones", "full", "scalar_tensor", "zeros_like", "ones_like", "full_like",
                  "linspace", "logspace", "eye")
# Builtins of torch.nn.functional (C functions, torch._C._nn) whose int-list argument the C
# argument parser checks before __torch_function__ runs: milesial's U-Net pads the upsampled map
# by sizes read from .size(), F.pad(x1, [diffX // 2, diffX - diffX // 2, ...]), and fx failed with
# "pad(): argument 'pad' (position 2) must be tuple of ints, not list". While tracing, a call that
# holds a proxy anywhere in its arguments becomes the graph node fx would make for int arguments.
_FUNCTIONAL_BUILTINS = ("pad",)
# torch factories that become graph nodes only when a size is traced (a proxy in the arguments) and
# otherwise stay what fx makes of them: torchvision's stochastic_depth draws
# `torch.empty([input.shape[0]] + [1] * (input.ndim - 1), dtype=..., device=...).bernoulli_(p)`, on
# which fx failed ("empty() received an invalid combination of arguments - got (_Proxy, ...)";
# examples/review8, helper-89). Its values are unspecified until bernoulli_ overwrites them.
_TORCH_PROXY_ARGS = ("empty",)


def traced_factory(fn):
    """fn, or, where fn is one of the torch factories the tracer captures, a function that calls
    torch.<name> when it runs: a reference bound before tracing (an OpInfo's op) then reaches the
    tracer's graph node instead of running while fx traces."""
    name = getattr(fn, "__name__", "")
    if name in _FACTORY_DRAWS + _FACTORY_CALLS and getattr(torch, name, None) is fn:
        def late(*args, **kwargs):
            return getattr(torch, name)(*args, **kwargs)
        late.__name__ = name
        return late
    return fn


class _StackTracer(torch.fx.Tracer):
    record_stack_traces = True
    proxy_buffer_attributes = True  # self.mask[...] becomes a get_attr node, not a constant

    def __init__(self, extra_modules=None, mha_seen=None, example_inputs=None):
        super().__init__()
        self._extra = extra_modules or {}
        self._mha_seen = mha_seen or {}
        # the example inputs, one per placeholder in order (their meta values: _to_meta)
        self._examples = list(example_inputs) if example_inputs is not None else []
        self._placeholders = 0
        self._in_meta = False  # computing a meta value: the patched factories call through
        self._rng = None  # the RNG state after the last node was made
        self._drew = None  # (node or None) the first node made after a draw ran at trace time

    # Random draws are the model's semantics. torch.rand / torch.randn with Python-int sizes
    # take no proxy, so fx would run them once while tracing and freeze the numbers into a
    # _tensor_constant, while `expected` comes from a run that drew other numbers. While
    # tracing they become graph nodes instead (the reference run records what they drew, as
    # for randn_like); any other draw that runs at trace time (torch.randint, x.normal_() of
    # a constant, a torch.rand bound before tracing) changes the RNG state, and the capture
    # is refused naming the first node made after it.
    def trace(self, root, concrete_args=None):
        saved = {k: getattr(torch, k) for k in _FACTORY_DRAWS + _FACTORY_CALLS}
        for k, orig in saved.items():
            setattr(torch, k, self._factory_draw(orig) if k in _FACTORY_DRAWS else self._factory_call(orig))
        saved_f = {k: getattr(torch.nn.functional, k) for k in _FUNCTIONAL_BUILTINS}
        for k, orig in saved_f.items():
            setattr(torch.nn.functional, k, self._proxy_args_call(orig))
        saved_p = {k: getattr(torch, k) for k in _TORCH_PROXY_ARGS}
        for k, orig in saved_p.items():
            setattr(torch, k, self._proxy_args_call(orig))
        self._rng, self._drew = torch.get_rng_state(), None
        try:
            with torch.enable_grad():  # grad mode off while tracing = the user's no-grad block
                graph = super().trace(root, concrete_args)
        finally:
            for k, orig in saved.items():
                setattr(torch, k, orig)
            for k, orig in saved_f.items():
                setattr(torch.nn.functional, k, orig)
            for k, orig in saved_p.items():
                setattr(torch, k, orig)
        if self._drew is None and not torch.equal(self._rng, torch.get_rng_state()):
            self._drew = (None,)
        if self._drew is not None:
            n = self._drew[0]
            where = "before the model's output" if n is None else \
                "at or before node %r%s" % (n.name, _user_line(n))
            raise CaptureError(
                "gcdbg exporter: the model draws random numbers while torch.fx traces it (%s): fx "
                "runs such a draw once and freezes its numbers into a constant, so the trace "
                "could not replay what PyTorch draws\n  what to change: draw with torch.rand / "
                "torch.randn (sizes may be ints or x.shape), torch.randperm(n), torch.rand_like / "
                "torch.randn_like, torch.bernoulli or dropout, which gcdbg records and replays; not torch.randint, "
                "torch.normal, Tensor.uniform_/normal_ or a torch.rand imported by name "
                "(`from torch import rand`)" % where)
        return graph

    def _factory_draw(self, orig):
        name = "torch." + orig.__name__

        def draw(*args, **kwargs):
            for k in ("generator", "out"):
                if kwargs.get(k) is not None:
                    raise CaptureError("gcdbg exporter: %s(..., %s=...) cannot be captured\n  what "
                                       "to change: draw from the default generator without %s= "
                                       "(torch.manual_seed seeds it)" % (name, k, k))
            if self._in_meta:
                return orig(*args, **kwargs)
            return self.create_proxy("call_function", orig, args, kwargs)
        draw.__name__ = orig.__name__
        return draw

    def _factory_call(self, orig):
        def call(*args, **kwargs):
            if kwargs.get("out") is not None or self._in_meta:  # fx's own way: runs, or a node through the out proxy
                return orig(*args, **kwargs)
            return self.create_proxy("call_function", orig, args, kwargs)
        call.__name__ = orig.__name__
        return call

    def _proxy_args_call(self, orig):
        def has_proxy(v):
            if isinstance(v, torch.fx.Proxy):
                return True
            if isinstance(v, (list, tuple)):
                return any(has_proxy(x) for x in v)
            return False

        def call(*args, **kwargs):
            if not self._in_meta and (has_proxy(args) or has_proxy(tuple(kwargs.values()))):
                return self.create_proxy("call_function", orig, args, kwargs)
            return orig(*args, **kwargs)
        call.__name__ = orig.__name__
        return call

    def create_proxy(self, kind, target, args, kwargs, *rest, **kw):
        drew = self._rng is not None and self._drew is None and \
            not torch.equal(self._rng, torch.get_rng_state())
        p = super().create_proxy(kind, target, args, kwargs, *rest, **kw)
        gcdbg_gradmode.mark(p.node)  # made inside `with torch.no_grad():`?
        if kind in ("call_function", "call_method", "call_module") and _autocast_on():
            raise CaptureError(
                "gcdbg exporter: cannot capture node %r with torch.fx%s: it runs under torch.autocast "
                "(mixed precision), which torch.fx does not record: the graph would compute in "
                "float32 what PyTorch's reference computes in float16/bfloat16, and every value "
                "would differ\n  what to change: export the model without autocast (the float32 "
                "step), or write the casts out (`x.to(torch.bfloat16)`, a module converted with "
                "`.to(torch.bfloat16)`), which the trace records"
                % (p.node.name, _current_user_line()))
        if drew:
            self._drew = (p.node,)
        if kind != "output":
            p.node.meta["gcdbg_meta"] = self._meta_value(kind, target, args, kwargs)
        return p

    def _meta_value(self, kind, target, args, kwargs):
        """What the node computes on the meta device (_NO_META where that is not known): a
        placeholder's example input, a call's result on its arguments' meta values. The RNG
        state is left as it was (the draw check above compares it), and the factories patched
        for tracing call through."""
        if kind == "placeholder":
            i, self._placeholders = self._placeholders, self._placeholders + 1
            if i >= len(self._examples):
                return _NO_META
            try:
                return _to_meta(self._examples[i])
            except _MetaUnknown:
                return _NO_META
        try:
            margs, mkwargs = _to_meta(args), _to_meta(kwargs)
        except _MetaUnknown:
            return _NO_META
        rng = torch.get_rng_state()
        self._in_meta = True
        quiet = warnings.catch_warnings()  # the user's run warns; the meta one must not again
        quiet.__enter__()
        warnings.simplefilter("ignore")
        try:
            if kind == "call_function":
                if getattr(target, "__name__", "") in _FACTORY_DRAWS + _FACTORY_CALLS + _TORCH_PROXY_ARGS:
                    mkwargs = dict(mkwargs, device="meta")
                v = target(*margs, **mkwargs)
            elif kind == "call_method":
                v = getattr(margs[0], target)(*margs[1:], **mkwargs)
            elif kind == "call_module":
                m = self.root.get_submodule(target)
                state = {n: _to_meta(t) for n, t in list(m.named_parameters()) + list(m.named_buffers())}
                # (call_module and getattr call through while _in_meta)
                v = torch.nn.utils.stateless.functional_call(m, state, tuple(margs), mkwargs)
            elif kind == "get_attr":
                v = self.root
                for part in target.split("."):
                    v = getattr(v, part)
            else:
                return _NO_META
            return _to_meta(v)
        except Exception:  # no meta kernel, a Python-only module: not known
            return _NO_META
        finally:
            quiet.__exit__(None, None, None)
            self._in_meta = False
            torch.set_rng_state(rng)

    def proxy(self, node):
        return _Proxy(node, self)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        # fx turns a module's parameter read into a get_attr proxy while it traces; a meta
        # value's computation (_meta_value) reads the module's own (reparametrized) tensors
        if self._in_meta:
            return attr_val
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def call_module(self, m, forward, args, kwargs):
        if self._in_meta:
            return forward(*args, **kwargs)
        return self._call_module(m, forward, args, kwargs)

    def _call_module(self, m, forward, args, kwargs):
        wn = gcdbg_modcheck.traced_weight_norm(self, m, args, kwargs)  # nn.utils.weight_norm
        if wn is not None:
            return wn
        # nn.TransformerEncoderLayer is traced through (its slow path: norms, dropouts,
        # linears and the attention become nodes of their own), and so is an
        # nn.MultiheadAttention whose dropout draws in training, so that every draw is a
        # dropout node whose mask the reference run records (see _encoder_layer_forward).
        if isinstance(m, torch.nn.TransformerEncoderLayer):
            return _encoder_layer_forward(m, *args, **kwargs)
        if isinstance(m, torch.nn.TransformerEncoder):
            return _encoder_forward(m, *args, **kwargs)
        if isinstance(m, (torch.nn.TransformerDecoderLayer, torch.nn.TransformerDecoder)):
            return forward(*args, **kwargs)  # no fast path: its own forward, traced through
        if isinstance(m, torch.nn.Transformer):
            return _transformer_forward(m, *args, **kwargs)
        if _mha_draws(m):
            return _mha_forward(m, self._mha_seen.get(id(m)), *args, **kwargs)
        return super().call_module(m, forward, args, kwargs)

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        # Tracing a function, fx roots it at an empty Module: install the modules the
        # function reaches there, parameters and buffers included, before tracing starts.
        if not is_module:
            for name, m in self._extra.items():
                self.root.add_module(name, m)
                for pn, t in list(m.named_parameters()) + list(m.named_buffers()):
                    self.tensor_attrs[t] = name + "." + pn
        return super().create_args_for_root(root_fn, is_module, concrete_args)


class CaptureError(RuntimeError):
    """torch.fx could not capture the model; the message says what to change."""


# Transformer layers traced through. nn.TransformerEncoderLayer's forward branches on its
# inputs (fast-path checks), which fx cannot follow, so the tracer runs its slow path
# (torch/nn/modules/transformer.py, PyTorch 1.13) instead. An nn.MultiheadAttention stays
# a call_module leaf unless its attention dropout draws (training, dropout > 0): then the
# tracer runs F.multi_head_attention_forward's computation (torch/nn/functional.py, 1.13)
# with F.dropout as a node, whose mask the reference run records. That code branches on
# the masks' dtypes and ranks, which a proxy does not have: a probe run of the model
# (RNG state, parameters and buffers restored afterwards) records them per module.

def _encoder_layer_forward(m, src, src_mask=None, src_key_padding_mask=None):
    x = src
    if m.norm_first:
        x = x + m._sa_block(m.norm1(x), src_mask, src_key_padding_mask)
        x = x + m._ff_block(m.norm2(x))
    else:
        x = m.norm1(x + m._sa_block(x, src_mask, src_key_padding_mask))
        x = m.norm2(x + m._ff_block(x))
    return x


def _transformer_forward(m, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                         src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None):
    # nn.Transformer's forward without its argument checks (comparisons of sizes, which
    # fx cannot branch on): the encoder, then the decoder on its memory.
    memory = m.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
    return m.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                     tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)


def _encoder_forward(m, src, mask=None, src_key_padding_mask=None):
    # TransformerEncoder's slow path; in eval PyTorch may take its nested-tensor fast path,
    # whose output is zero at padded positions: gcdbg's comparison then reports them.
    out = src
    for mod in m.layers:
        out = mod(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
    if m.norm is not None:
        out = m.norm(out)
    return out


def _mha_draws(m):
    return isinstance(m, torch.nn.MultiheadAttention) and m.training and m.dropout > 0


_MHA_ARGS = ["query", "key", "value", "key_padding_mask", "need_weights", "attn_mask",
             "average_attn_weights"]


def _mha_calls(model, inputs):
    """For each drawing nn.MultiheadAttention of model: the dtype and rank of the query and
    masks it is called with, from one probe run."""
    if inputs is None or not isinstance(model, torch.nn.Module):
        return {}
    mhas = [m for m in model.modules() if _mha_draws(m)]
    if not mhas:
        return {}
    seen = {}

    def wrap(m, orig):
        def fwd(*a, **kw):
            rec = seen.setdefault(id(m), {})
            for k, v in list(zip(_MHA_ARGS, a)) + list(kw.items()):
                if k in ("query", "key_padding_mask", "attn_mask"):
                    got = (v.dtype, v.dim()) if isinstance(v, torch.Tensor) else None
                    if rec.get(k, got) != got:
                        raise CaptureError("gcdbg exporter: nn.MultiheadAttention %s is called with "
                                           "%s of different dtypes or ranks\n  what to change: pass "
                                           "one kind of %s to it" % (type(m).__name__, k, k))
                    rec[k] = got
            return orig(*a, **kw)
        return fwd

    for m in mhas:
        m.forward = wrap(m, m.forward)
    rng = torch.get_rng_state()
    saved = {k: v.detach().clone() for k, v in model.state_dict(keep_vars=True).items()}
    try:
        with torch.no_grad():
            model(*inputs)
    except CaptureError:
        raise
    except Exception as e:  # the model's own error: the same message as when fx runs it
        raise CaptureError("gcdbg exporter: the model fails on its example inputs%s: %s: %s\n"
                           "  what to change: this is the model's own error, raised by PyTorch when "
                           "the model runs on the inputs make() returns; fix the model or its "
                           "example inputs (model(*inputs) shows it)"
                           % (_traceback_line(e.__traceback__), type(e).__name__, str(e).split("\n")[0])) from e
    finally:
        for m in mhas:
            del m.forward
        torch.set_rng_state(rng)
        with torch.no_grad():
            for k, v in model.state_dict(keep_vars=True).items():
                v.copy_(saved[k])
    return seen


def _mha_forward(m, seen, query, key, value, key_padding_mask=None, need_weights=True,
                 attn_mask=None, average_attn_weights=True):
    def refuse(why):
        raise CaptureError("gcdbg exporter: nn.MultiheadAttention(dropout=%g) in training %s\n  what "
                           "to change: use dropout=0 (or eval()), or a packed, batched "
                           "MultiheadAttention without bias_k/add_zero_attn" % (m.dropout, why))
    if seen is None:
        refuse("was not called in the probe run of the model (it is traced through so that its "
               "dropout draw is recorded)")
    if not m._qkv_same_embed_dim or m.bias_k is not None or m.add_zero_attn:
        refuse("with kdim/vdim, add_bias_kv or add_zero_attn is not supported by the exporter")
    qdt, qdim = seen["query"]
    if qdim != 3:
        refuse("on an unbatched (2-D) query is not supported by the exporter")
    kpm_t, am_t = seen.get("key_padding_mask"), seen.get("attn_mask")
    H, E = m.num_heads, m.embed_dim
    hd = E // H
    if m.batch_first:
        if key is value:
            if query is key:
                query = key = value = query.transpose(1, 0)
            else:
                query, key = [x.transpose(1, 0) for x in (query, key)]
                value = key
        else:
            query, key, value = [x.transpose(1, 0) for x in (query, key, value)]
    tgt_len, bsz, _ = query.shape
    src_len = key.shape[0]
    w, b = m.in_proj_weight, m.in_proj_bias
    if key is value and query is key:
        q, k, v = F.linear(query, w, b).chunk(3, dim=-1)
    elif key is value:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q = F.linear(query, w_q, b_q)
        k, v = F.linear(key, w_kv, b_kv).chunk(2, dim=-1)
    else:
        w_q, w_k, w_v = w.chunk(3)
        b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
        q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
    am, am_dt = attn_mask, None
    if am is not None:
        am_dt = am_t[0]
        if am_t[1] == 2:
            am = am.unsqueeze(0)
    q = q.contiguous().view(tgt_len, bsz * H, hd).transpose(0, 1)
    k = k.contiguous().view(k.shape[0], bsz * H, hd).transpose(0, 1)
    v = v.contiguous().view(v.shape[0], bsz * H, hd).transpose(0, 1)
    if key_padding_mask is not None:
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, H, -1, -1).reshape(bsz * H, 1, src_len)
        if am is None:
            am, am_dt = kpm, kpm_t[0]
        elif am_dt == torch.bool:
            am = am.logical_or(kpm)
        else:
            am = am.masked_fill(kpm, float("-inf"))
    if am is not None and am_dt == torch.bool:
        am = torch.zeros_like(am, dtype=qdt).masked_fill(am, float("-inf"))
    q_scaled = q / math.sqrt(hd)
    if am is not None:
        attn = torch.baddbmm(am, q_scaled, k.transpose(-2, -1))
    else:
        attn = torch.bmm(q_scaled, k.transpose(-2, -1))
    attn = F.softmax(attn, dim=-1)
    attn = F.dropout(attn, p=m.dropout)
    out = torch.bmm(attn, v)
    out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, E)
    out = F.linear(out, m.out_proj.weight, m.out_proj.bias)
    out = out.view(tgt_len, bsz, E)
    if m.batch_first:
        out = out.transpose(1, 0)
    if not need_weights:
        return out, None
    attn = attn.view(bsz, H, tgt_len, src_len)
    if average_attn_weights:
        attn = attn.sum(dim=1) / H
    return out, attn


_CAPTURE_HINTS = [
    ("cannot be iterated",
     "torch.fx cannot iterate a traced tensor here (a for-loop over a tensor, its shape or its "
     "x.unbind(0), or *args of one): how many items it has is not known while tracing. Loop over "
     "a Python int instead (for t in range(T): ... x[:, t], T a constant or an attribute set in "
     "__init__), or unpack a fixed number in one assignment (`a, b, c = x.unbind(0)`, "
     "`B, T, C = x.shape`, which gcdbg's tracer supports)"),
    ("cannot be interpreted as an integer",
     "a traced size is used where Python needs an int (range(x.size(1)), a loop count, a list "
     "index): torch.fx records sizes as graph values, so Python cannot loop a traced number of "
     "times. Loop over a Python int instead (for t in range(T), T the model's fixed length: a "
     "constant or an attribute set in __init__); indexing (x[:, t]), views and factories take "
     "traced sizes as they are"),
    ("symbolically traced variables cannot be used as inputs to control flow",
     "an if/while depends on a tensor's values (data-dependent control flow). Split the model "
     "at that point and export the pieces with graph_breaks=[(fn0, inputs0, reason), ...] "
     "(docs/exporter.md, fixtures/models/graph_break.py), or use --method dynamo on PyTorch 2.x"),
    ("is not installed as a submodule",
     "the model calls an nn.Module that is neither its attribute nor a global of the traced "
     "function (e.g. one created inside forward or passed in a container). Assign it to an "
     "attribute in __init__ (self.proj = nn.Linear(...)) so it is part of the model"),
    ("object is not callable",
     "a traced value was called as a function; check that no tensor shadows a module or a "
     "function name in forward"),
    (("int() argument must be", "float() argument must be"),
     "Python needs the value of a tensor here (int(self.queue_ptr), float(x)), which torch.fx does not have while tracing. A step's bookkeeping that Python "
     "uses as a number (MoCo's queue pointer, a step counter) can stay a Python attribute that "
     "the training step advances after calling the model, keeping the buffer beside it "
     "(self.queue_ptr[0] = ptr traces); a size is x.shape[0], and int(x.shape[0] / k) is "
     "x.shape[0] // k (Swin's window_reverse); a value-dependent choice is "
     "torch.where, or a split with graph_breaks (docs/exporter.md)"),
    ("len()",
     "len() of a traced tensor is not known while tracing: use x.shape[0] (or x.size(0)), "
     "which gcdbg records as a size"),
    ("'len' is not supported in symbolic tracing",
     "len() of a traced tensor is its first size, a traced value while fx traces, and Python "
     "cannot loop a traced number of times: take x.shape[0] where a size is needed (views, "
     "factories and indexing take it as it is) and loop over a Python int (a constant or an "
     "attribute set in __init__). The rank (len(x.shape), len(x.size())) is known and traces"),
    ("finfo(): argument",
     "torch.finfo(x.dtype): x.dtype is a traced attribute while fx traces, not a torch.dtype. Name "
     "the dtype (torch.finfo(torch.float32).min, or a dtype the model keeps as an attribute set in "
     "__init__), or fill with float(\"-inf\") where a masked softmax follows"),
    # a key that is a tuple matches when the message holds any of them
    ("arange()",
     "this arange got a traced value the tracer could not record: the tracer records "
     "torch.arange(0, t) of a traced size (t = x.shape[1]) called as torch.arange, not an arange "
     "bound before tracing (`from torch import arange`). Call torch.arange, or register a buffer in __init__ "
     "(self.register_buffer(\"pos\", torch.arange(max_len), persistent=False)) and slice it "
     "(self.pos[:t]), or use a constant size"),
    (("randint()", "normal()", "randint_like()"),
     "this random op cannot take a traced size or tensor here. gcdbg records and replays torch.rand and "
     "torch.randn (sizes ints or x.shape), torch.randperm(n), torch.rand_like / torch.randn_like, "
     "torch.bernoulli and dropout; draw with one of those"),
]


def _hint_matches(key, text):
    return any(k in text for k in key) if isinstance(key, tuple) else key in text


def _autocast_on():
    """Whether torch.autocast is active (CPU or CUDA) at this point of the trace."""
    on = torch.is_autocast_enabled()
    cpu = getattr(torch, "is_autocast_cpu_enabled", None)
    return on or bool(cpu and cpu())


def _current_user_line():
    """" at file.py:12 (`code`)": the innermost frame of the current stack in the user's code
    (as _traceback_line), or ""."""
    lib = os.path.dirname(os.__file__)
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if "/torch/" not in name and not os.path.basename(name).startswith("gcdbg_") and \
                not name.startswith(lib) and not name.startswith("<"):
            import linecache
            code = linecache.getline(name, f.f_lineno).strip()
            return " at %s:%d (`%s`)" % (os.path.basename(name), f.f_lineno, code)
        f = f.f_back
    return ""


def _traceback_line(tb):
    """" at file.py:12 (`code`)": the innermost frame of traceback tb in the user's code (not
    torch, not the exporter, not the standard library), or ""."""
    user = None
    lib = os.path.dirname(os.__file__)
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if "/torch/" not in f and not os.path.basename(f).startswith("gcdbg_") and \
                not f.startswith(lib) and not f.startswith("<"):
            user = (f, tb.tb_lineno)
        tb = tb.tb_next
    if user is None:
        return ""
    import linecache
    code = linecache.getline(user[0], user[1]).strip()
    return " at %s:%d (`%s`)" % (os.path.basename(user[0]), user[1], code)


# torch.distributions checks its arguments with Python control flow on tensor values
# (validate_args) and samples with torch.normal & co., neither of which fx can record
_DISTRIBUTIONS_HINT = (
    "torch.distributions cannot be traced: its constructors check their arguments with Python "
    "control flow on tensor values and rsample()/sample() draw with torch.normal, which fx runs "
    "once at trace time. Write the distribution's formulas as tensor ops: the reparameterization "
    "z = mu + std * torch.randn_like(std) (a draw gcdbg records and replays), log-probabilities and "
    "the KL term by hand (for two diagonal Gaussians, KL(N(mu, std) || N(0, 1)) = "
    "-0.5 * (1 + 2 * log(std) - mu**2 - std**2))")


def _in_distributions(tb):
    while tb is not None:
        if "/torch/distributions/" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


# pack_padded_sequence sorts by the lengths' values and sizes its PackedSequence by them
# (batch_sizes): a shape that depends on data, which fx cannot trace (it fails inside
# torch/nn/utils/rnn.py on lengths.cpu() or torch._pack_padded_sequence)
_PACKED_HINT = (
    "nn.utils.rnn.pack_padded_sequence / pack_sequence cannot be traced: a PackedSequence's layout "
    "(batch_sizes, the sort by length) depends on the lengths' values. Run the RNN on the padded "
    "batch and mask the padding afterwards (h * mask, masked_fill(~mask, -inf) before a max, the "
    "last valid step by h.gather(1, (lengths - 1)...)); a unidirectional RNN's outputs at valid "
    "steps are then the same as packed; a bidirectional one's backward direction starts in the "
    "padding, so for the packed result run that direction as a second RNN on each sequence "
    "reversed within its length (x.gather(1, idx) with idx = (lengths - 1 - t).clamp(min=0)) "
    "and reverse its output back the same way")


def _in_rnn_packing(tb):
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith("/torch/nn/utils/rnn.py"):
            return True
        tb = tb.tb_next
    return False


def _capture_error(what, e):
    msg = str(e).split("\n")[0]
    where = _traceback_line(e.__traceback__)
    if _in_distributions(e.__traceback__):
        return CaptureError("gcdbg exporter: cannot capture %s with torch.fx%s: %s\n  what to change: %s"
                            % (what, where, msg, _DISTRIBUTIONS_HINT))
    if _in_rnn_packing(e.__traceback__):
        # fx's own error there ("`__cuda_array_interface__` must be a dict") says nothing about
        # packing (examples/review9 finding 5): name what failed instead
        return CaptureError("gcdbg exporter: cannot capture %s with torch.fx%s: a packed sequence "
                            "(torch.fx: %s)\n  what to change: %s" % (what, where, msg, _PACKED_HINT))
    for key, hint in _CAPTURE_HINTS:
        if _hint_matches(key, str(e)):
            return CaptureError("gcdbg exporter: cannot capture %s with torch.fx%s: %s\n  what to change: %s"
                                % (what, where, msg, hint))
    return CaptureError("gcdbg exporter: cannot capture %s with torch.fx%s: %s: %s\n  what to change: "
                        "torch.fx traces Python once with symbolic tensors, so code that needs "
                        "concrete values (Python control flow on tensors, .item(), .tolist(), "
                        "numpy) must move out of the traced function; split the model there with "
                        "graph_breaks (docs/exporter.md), or use --method dynamo on PyTorch 2.x"
                        % (what, where, type(e).__name__, msg))


def fx_capture(model_or_fn, example_inputs=None):
    is_module = isinstance(model_or_fn, torch.nn.Module)
    name = type(model_or_fn).__name__ if is_module else getattr(model_or_fn, "__name__", "fn")
    refused = gcdbg_modcheck.refusal(model_or_fn, None if is_module else _reached_modules(model_or_fn))
    if refused:
        raise CaptureError(refused)
    tracer = _StackTracer(None if is_module else _reached_modules(model_or_fn),
                          _mha_calls(model_or_fn, example_inputs), example_inputs)
    try:
        graph = tracer.trace(model_or_fn)
    except CaptureError:
        raise
    except Exception as e:  # torch.fx raises TraceError, NameError, TypeError, RuntimeError ...
        raise _capture_error("%s %r" % ("model" if is_module else "function", name), e) from e
    for n in graph.nodes:
        # x.item() / x.tolist() make Python numbers of tensor values; fx records the call, and
        # gcdbg's graphs have no such op, so `gcdbg run` refused the trace without saying what
        # to change (examples/review9 finding 3). Dynamo breaks the graph there.
        if n.op == "call_method" and n.target in ("item", "tolist"):
            raise CaptureError(
                "gcdbg exporter: cannot capture %s %r with torch.fx: node %r%s calls .%s(), which "
                "turns a tensor into Python numbers (a graph break in torch.compile)\n  what to "
                "change: return the tensor from the model and call .%s() outside it (a logged "
                "D(x) = output.mean().item() becomes `return loss, output.mean().detach()`), or "
                "split the model there with graph_breaks (docs/exporter.md)"
                % ("model" if is_module else "function", name, n.name, _user_line(n), n.target, n.target))
    return torch.fx.GraphModule(tracer.root, graph, name)


class _RecordingShapeProp(ShapeProp):
    def __init__(self, gm):
        super().__init__(gm)
        self.values = {}
        self.metas = {}

    def run_node(self, n):
        self.current = n
        # a node the model made inside `with torch.no_grad():` runs under no_grad here too (a
        # write with out= of a value requiring grad fails otherwise: spectral_norm's power step)
        with torch.set_grad_enabled(torch.is_grad_enabled() and not gcdbg_gradmode.in_region(n)):
            result = super().run_node(n)
        self.values[n.name] = result
        # the meta as the node made its value: a later in-place view op (x.unsqueeze_(0),
        # x.squeeze_()) changes the same tensor object's shape and strides
        try:
            self.metas[n.name] = value_meta(result)
        except Exception:
            pass  # export_graph encodes it from the value, and says what fails there
        return result


def _user_line(n):
    """" (file.py:12: code)": the innermost user frame of node n's recorded stack, or ""."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in \w+\n\s*(.*)', getattr(n, "stack_trace", None) or "")
    user = [f for f in frames if "/torch/" not in f[0] and not f[0].endswith("gcdbg_export.py")]
    if not user:
        return ""
    f, ln, code = user[-1]
    return " (%s:%s: %s)" % (os.path.basename(f), ln, code.strip())


def _propagate(sp, example_inputs):
    """sp.propagate, where an error of the model itself (a shape mismatch on the example
    inputs) becomes a CaptureError naming the node and the user's line, without the
    tracebacks ShapeProp prints."""
    import contextlib
    import io
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            sp.propagate(*example_inputs)
    except CaptureError:
        raise
    except Exception as e:
        root = e
        while (root.__cause__ or root.__context__) is not None:  # ShapeProp re-raises its own
            root = root.__cause__ or root.__context__
        n = getattr(sp, "current", None)
        where = ""
        if n is not None:
            where = " at node %r%s" % (n.name, _user_line(n))
        raise CaptureError("gcdbg exporter: the model fails on its example inputs%s: %s: %s\n"
                           "  what to change: this is the model's own error, raised by PyTorch when "
                           "the model runs on the inputs make() returns; fix the model or its "
                           "example inputs (model(*inputs) shows it)"
                           % (where, type(root).__name__, str(root).split("\n")[0])) from e


def _tensor_meta(t):
    return {"dtype": dtype_name(t.dtype), "shape": [int(s) for s in t.shape],
            "stride": [int(s) for s in t.stride()], "requires_grad": bool(t.requires_grad)}


def value_meta(v):
    """meta fields for a node's value: tensor meta, meta.value, or meta.items for tuples/lists
    holding tensors (each item a tensor meta or {"value": ...})."""
    if isinstance(v, torch.Tensor):
        return _tensor_meta(v)
    if isinstance(v, (tuple, list)) and any(isinstance(x, torch.Tensor) for x in _flatten(v)):
        return {"items": [value_meta(x) if isinstance(x, (torch.Tensor, tuple, list))
                          else {"value": encode_value(x)} for x in v]}
    try:
        return {"value": encode_value(v)}
    except EncodeError:
        return {}


def _flatten(v):
    if isinstance(v, (tuple, list)):
        for x in v:
            yield from _flatten(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _flatten(x)
    else:
        yield v


def _get_path(root, path):
    obj = root
    for p in path.split("."):
        obj = getattr(obj, p)
    return obj


# ---------------------------------------------------------------------------------------------
# expected + timing


def _clone_inputs(inputs):
    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            c = x.detach().clone()
            c.requires_grad_(x.requires_grad)
            out.append(c)
        else:
            out.append(x)
    return tuple(out)


def _flat_outputs(res):
    return [x for x in _flatten(res)]


def _loss(outs):
    terms = [(o * torch.ones_like(o)).sum() for o in outs
             if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad]
    if not terms:
        return None
    return sum(terms[1:], terms[0])


def compute_expected(fn, inputs, grad_params, input_names):
    """Eager outputs, and grads of sum(out_i * ones) w.r.t. grad_params {qualname: Parameter}
    and every input requiring grad (keyed by input_names[i])."""
    ins = _clone_inputs(inputs)
    any_grad = bool(grad_params) or any(isinstance(x, torch.Tensor) and x.requires_grad for x in ins)
    with torch.set_grad_enabled(any_grad):
        res = fn(*ins)
    outs = _flat_outputs(res)
    grads = {}
    if any_grad:
        targets = list(grad_params.items()) + [
            (input_names[i], x) for i, x in enumerate(ins)
            if isinstance(x, torch.Tensor) and x.requires_grad]
        loss = _loss(outs)
        if loss is not None and targets:
            gs = torch.autograd.grad(loss, [t for _, t in targets], allow_unused=True)
            # a target PyTorch gives no gradient (None: unused, or used only inside a no_grad
            # block) is left out of expected.grads, where a zero tensor would claim "gradient 0"
            # for a parameter that got none; export_graph names it in expected.no_grad
            for (k, t), g in zip(targets, gs):
                if g is not None:
                    grads[k] = g
        else:
            any_grad = False
    return outs, grads, any_grad


def measure(fn, inputs, runs, want_backward, warmup=3):
    """Median eager ms in PyTorch's warm steady state, as bench_eager.py's time_graph:
    the previous call's outputs (and graph) dropped before the next call, inputs cloned
    outside the timed region, in timing_env's environment, timing_threads() threads."""
    prev = torch.get_num_threads()
    threads = timing_threads()
    torch.set_num_threads(threads)
    try:
        fwd, bwd = [], []
        res = loss = None
        for i in range(warmup + runs):
            res = None
            ins = _clone_inputs(inputs)
            with torch.set_grad_enabled(want_backward):
                t0 = time.perf_counter()
                res = fn(*ins)
                t1 = time.perf_counter()
            if i >= warmup:
                fwd.append((t1 - t0) * 1e3)
        res = None
        if want_backward:
            for i in range(warmup + runs):
                loss = None
                ins = _clone_inputs(inputs)
                loss = _loss(_flat_outputs(fn(*ins)))
                if loss is None:
                    break
                t0 = time.perf_counter()
                loss.backward()
                t1 = time.perf_counter()
                if i >= warmup:
                    bwd.append((t1 - t0) * 1e3)
        loss = None
        timing = {"device": "cpu", "threads": threads, "runs": runs,
                  "eager_forward_ms": round(statistics.median(fwd), 4)}
        if bwd:
            timing["eager_backward_ms"] = round(statistics.median(bwd), 4)
        return timing
    finally:
        torch.set_num_threads(prev)


# ---------------------------------------------------------------------------------------------
# graph export


_F = torch.nn.functional
# the functional dropouts: (feature, alpha, default training, the input rank batched calls have or
# None); feature dropout draws one value per (sample, channel) (ATen's make_feature_noise); F.dropout1d
# and F.dropout3d take an unbatched input by unsqueezing it to a batch of one, F.dropout2d never does
_DROPOUT_FNS = {_F.dropout: (False, False, True, None), torch.dropout: (False, False, True, None),
                _F.dropout2d: (True, False, True, None), _F.dropout3d: (True, False, True, 5),
                _F.feature_alpha_dropout: (True, True, False, None), _F.alpha_dropout: (False, True, False, None)}
if hasattr(_F, "dropout1d"):
    _DROPOUT_FNS[_F.dropout1d] = (True, False, True, 3)
_DRAW_FNS = {torch.rand_like, torch.randn_like, torch.bernoulli, torch.rand, torch.randn, torch.randperm}
_DRAW_METHODS = {"bernoulli", "bernoulli_"}  # x.new_empty(s).bernoulli_(p): timm's drop_path
# nn.AlphaDropout draws per element, nn.FeatureAlphaDropout per (sample, channel): (feature, alpha)
_ALPHA_DROPOUT_MODULES = {torch.nn.AlphaDropout: (False, True), torch.nn.FeatureAlphaDropout: (True, True)}
_FEATURE_DROPOUT_MODULES = tuple(getattr(torch.nn, k) for k in ("Dropout1d", "Dropout2d", "Dropout3d")
                                 if hasattr(torch.nn, k))
_ALPHA = 1.7580993408473766  # ATen's alpha dropout constant (SELU's alpha * scale)
_SDPA_113 = getattr(torch._C._nn, "_scaled_dot_product_attention", None)  # PyTorch 1.13's private form


def _dropout_args(n, args, kwargs):
    """(x, p, training, feature, alpha, batched rank) of a dropout node, or None when the node is
    no dropout."""
    if n.op == "call_function" and n.target in _DROPOUT_FNS:
        feature, alpha, tr_default, rank = _DROPOUT_FNS[n.target]
        names = ["input", "p", "train"] if n.target is torch.dropout else ["input", "p", "training", "inplace"]
        b = dict(zip(names, args))
        b.update(kwargs)
        tr = b.get("training", b.get("train", tr_default))
        return b["input"], float(b.get("p", 0.5)), bool(tr), feature, alpha, rank
    return None


class _RandomRecorder(torch.fx.Interpreter):
    """Runs the graph as the model ran and records, per random node, what PyTorch drew:
    dropout's keep mask (peeked from the RNG with the same call dropout makes, then the RNG is
    rewound so the node itself draws the same numbers), the drawn tensor for rand_like,
    randn_like and bernoulli."""

    def __init__(self, gm):
        super().__init__(gm)
        self.draws = {}

    def run_node(self, n):
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        if n.op == "call_function" and n.target is _F.rrelu:
            return self._rrelu(n, args, kwargs)
        if n.op == "call_function" and n.target is _SDPA_113:
            return self._sdpa(n, args, kwargs)
        drop = None
        if n.op == "call_module":
            m = self.module.get_submodule(n.target)
            if type(m) is torch.nn.Dropout:
                drop = (args[0], float(m.p), bool(m.training), False, False, None)
            elif type(m) in _FEATURE_DROPOUT_MODULES:  # one draw per (sample, channel)
                drop = (args[0], float(m.p), bool(m.training), True, False, None)
            elif type(m) in _ALPHA_DROPOUT_MODULES:
                drop = (args[0], float(m.p), bool(m.training)) + _ALPHA_DROPOUT_MODULES[type(m)] + (None,)
        else:
            drop = _dropout_args(n, args, kwargs)
        if drop is not None and drop[2] and drop[1] > 0 and isinstance(drop[0], torch.Tensor):
            x, p, _, feature, alpha, rank = drop
            state = torch.get_rng_state()
            # ATen's CPU dropout: noise = empty(sizes).bernoulli_(1 - p); out = x * noise / (1-p);
            # feature dropout draws noise of shape [N, C, 1, ...] (make_feature_noise), of an
            # unbatched input unsqueezed to a batch of one: [1, C, 1, ...]
            shape = tuple(x.shape)
            if feature:
                if rank is not None and x.dim() != rank:
                    shape = (1,) + shape
                shape = shape[:2] + (1,) * (len(shape) - 2)
            noise = torch.empty(shape, dtype=x.dtype).bernoulli_(1 - p)
            torch.set_rng_state(state)
            x0 = x.detach().clone()  # an inplace dropout overwrites x
            res = super().run_node(n)
            if len(shape) != x.dim():
                noise = noise.squeeze(0)
            mask = noise.bool().expand(x.shape).clone()  # the trace holds the output-shaped mask
            if p == 1:
                want = x0 * 0
            elif alpha:  # ATen: b = (noise - 1) * alpha * a + alpha * a * p; out = x * (noise * a) + b
                a = 1. / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
                b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
                want = (x0 * noise.mul_(a)).add_(b)
            else:
                want = x0 * noise.div_(1 - p)
            if not torch.equal(res.detach(), want):
                raise EncodeError("node %s: could not record the dropout mask PyTorch drew "
                                  "(the replayed draw does not reproduce the output)" % n.name)
            self.draws[n.name] = mask
            return res
        res = super().run_node(n)
        if (n.op == "call_function" and n.target in _DRAW_FNS) or \
                (n.op == "call_method" and n.target in _DRAW_METHODS):
            self.draws[n.name] = res.detach().clone()
        return res


    def _sdpa(self, n, args, kwargs):
        """PyTorch 1.13's _scaled_dot_product_attention with dropout_p > 0 drops its softmax
        weights with at::dropout (noise = empty(weights' shape).bernoulli_(1 - p)): the keep
        mask is peeked with the same call, the RNG rewound; the op's (output, weights) must be
        the weights without dropout times noise / (1 - p), and their product with value."""
        b = dict(zip(["query", "key", "value", "attn_mask", "dropout_p", "need_attn_weights", "is_causal"], args))
        b.update(kwargs)
        p = float(b.get("dropout_p", 0.0))
        q, k, v = b["query"], b["key"], b["value"]
        if not (p > 0 and all(isinstance(t, torch.Tensor) for t in (q, k, v))):
            return super().run_node(n)
        shape = tuple(torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])) + (q.shape[-2], k.shape[-2])
        state = torch.get_rng_state()
        noise = torch.empty(shape, dtype=q.dtype).bernoulli_(1 - p)
        torch.set_rng_state(state)
        mask = b.get("attn_mask")
        with torch.no_grad():
            _, w0 = _SDPA_113(q, k, v, mask, 0.0, True, bool(b.get("is_causal", False)))
        res = super().run_node(n)
        w = w0 * noise.div(1 - p) if p < 1 else w0 * 0
        if not (torch.equal(res[1].detach(), w) and torch.equal(res[0].detach(), torch.matmul(w, v.detach()))):
            raise EncodeError("node %s: could not record the attention dropout PyTorch drew (the replayed "
                              "draw does not reproduce the output)" % n.name)
        self.draws[n.name] = noise.bool().expand(w.shape).clone()
        return res

    def _rrelu(self, n, args, kwargs):
        """F.rrelu in training: ATen draws, for every element <= 0, a slope uniform in
        [lower, upper), rounded to x's dtype: the noise rrelu_with_noise fills, 1 elsewhere.
        Peeked with that same call on a copy of the input, then the RNG is rewound; the output
        must be x * noise."""
        b = dict(zip(["input", "lower", "upper", "training", "inplace"], args))
        b.update(kwargs)
        x = b["input"]
        if not (b.get("training", False) and isinstance(x, torch.Tensor)):
            return super().run_node(n)
        lo, hi = float(b.get("lower", 1. / 8)), float(b.get("upper", 1. / 3))
        state = torch.get_rng_state()
        noise = torch.empty(x.shape, dtype=x.dtype)
        torch.ops.aten.rrelu_with_noise(x.detach().clone(), noise, lo, hi, True)
        torch.set_rng_state(state)
        x0 = x.detach().clone()  # an inplace rrelu overwrites x
        res = super().run_node(n)
        if not torch.equal(res.detach(), x0 * noise):
            raise EncodeError("node %s: could not record the slopes rrelu drew (the replayed draw does "
                              "not reproduce the output)" % n.name)
        self.draws[n.name] = noise
        return res


def record_random(gm, example_inputs, outs):
    """Per random node of gm, what PyTorch drew in a run from the current RNG state; checks
    that the run reproduces the reference outputs `outs`."""
    has_random = any(
        (n.op == "call_module" and (type(gm.get_submodule(n.target)) is torch.nn.Dropout or
                                    type(gm.get_submodule(n.target)) in _FEATURE_DROPOUT_MODULES or
                                    type(gm.get_submodule(n.target)) in _ALPHA_DROPOUT_MODULES)) or
        (n.op == "call_function" and (n.target in _DROPOUT_FNS or n.target in _DRAW_FNS or n.target is _F.rrelu or
                                      (_SDPA_113 is not None and n.target is _SDPA_113))) or
        (n.op == "call_method" and n.target in _DRAW_METHODS)
        for n in gm.graph.nodes)
    if not has_random:
        return {}
    rec = _RandomRecorder(gm)
    with torch.no_grad():
        res = rec.run(*_clone_inputs(example_inputs))
    got = _flat_outputs(res)
    for i, (a, b) in enumerate(zip(got, outs)):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and \
                not torch.allclose(a.detach(), b.detach(), rtol=1e-5, atol=1e-6, equal_nan=True):
            raise EncodeError("output %d: the run recording random draws does not reproduce the "
                              "reference run (a random op the recorder does not know?)" % i)
    return rec.draws


def export_graph(gm, fn, example_inputs, gname, store, top_tensors, graph_tensors, *, train,
                 user_files, innermost_first, runs, stack_from_meta=False):
    """Export one GraphModule. fn is the eager callable whose results become `expected`
    (the original model/function piece). Tensors for placeholders go into graph_tensors,
    parameters/buffers into top_tensors."""
    # buffers (BatchNorm running stats in train mode) change on every forward: export and
    # compute `expected` from their values before any run, and leave the model as it was
    buffers = dict(gm.named_buffers())
    snapshot = {k: b.detach().clone() for k, b in buffers.items()}
    # parameters a forward changes in place (Embedding(max_norm=...) renormalizes the rows
    # it looks up) are exported and restored the same way, so the trace holds the values
    # the reference run started from
    own_params = dict(gm.named_parameters())
    param_snapshot = {k: p.detach().clone() for k, p in own_params.items()}

    def restore_buffers():
        with torch.no_grad():
            for k, b in buffers.items():
                if b.grad_fn is not None:  # a run's in-place write of a value requiring grad
                    b.detach_()  # (the graph run before no_grad's detach nodes): no history
                b.copy_(snapshot[k])
            for k, p in own_params.items():
                if not _same_values(p, param_snapshot[k]):
                    p.copy_(param_snapshot[k])

    sp = _RecordingShapeProp(gm)
    # on copies: an in-place op on an input (x.add_(y), x.unsqueeze_(0)) must leave the
    # example inputs as they were, the values the trace holds and `expected` starts from
    _propagate(sp, _clone_inputs(example_inputs))
    try:
        cut = gcdbg_gradmode.cut_no_grad(gm, sp.values, _user_line)
    except ValueError as e:
        raise CaptureError("gcdbg exporter: %s" % e) from e
    if cut:  # detach nodes where no-grad blocks end: the graph's values and metas again
        restore_buffers()
        sp = _RecordingShapeProp(gm)
        _propagate(sp, _clone_inputs(example_inputs))
    values = sp.values
    restore_buffers()

    nodes = []
    placeholders = []
    grad_params = {}  # qualified name -> tensor (for expected grads)

    def add_param(qual, t):
        is_param = isinstance(t, torch.nn.Parameter)
        rg = bool(train and is_param and t.requires_grad)
        if qual not in top_tensors:
            top_tensors[qual] = store.tensor(snapshot.get(qual, param_snapshot.get(qual, t)), qual, requires_grad=rg)
        if rg:
            grad_params[qual] = t

    ph_index = 0
    output_keys = None
    # a parameter held by several modules (tied weights: out.weight = emb.weight) is one
    # tensor under the name named_parameters() gives it first, so gcdbg sums its
    # gradient over every use, as PyTorch accumulates into the one tensor
    canonical = {}
    for qn, t in list(gm.named_parameters()) + list(gm.named_buffers()):
        canonical.setdefault(id(t), qn)
    for n in gm.graph.nodes:
        e = {"name": n.name, "op": n.op, "target": target_name(n)}
        if n.op == "output":
            e["target"] = "output"
        list_matters = n.op == "call_function" and n.target in (operator.getitem, operator.setitem)
        args = []
        for i, a in enumerate(n.args):
            if n.op == "output" and i == 0:
                a, output_keys = _flatten_output_arg(a)
            args.append(encode_arg(a, list_matters=(list_matters and i == 1)))
        e["args"] = args
        e["kwargs"] = {k: encode_arg(v) for k, v in n.kwargs.items()}
        meta = {}
        if n.op != "output":
            m = sp.metas.get(n.name)
            meta.update(m if m is not None else value_meta(values.get(n.name)))
        if n.op == "placeholder":
            x = example_inputs[ph_index]
            ph_index += 1
            placeholders.append(str(n.target))
            if isinstance(x, torch.Tensor):
                graph_tensors[str(n.target)] = store.tensor(x, gname + "/" + str(n.target)
                                                             if graph_tensors is not top_tensors
                                                             else str(n.target))
        elif n.op == "get_attr":
            t = _get_path(gm, n.target)
            if isinstance(t, torch.Tensor):
                e["target"] = canonical.get(id(t), str(n.target))
                add_param(e["target"], t)
        elif n.op == "call_module":
            m = gm.get_submodule(n.target)
            params = {}
            # MultiheadAttention is a leaf whose out_proj Linear holds parameters too.
            rec = isinstance(m, torch.nn.MultiheadAttention)
            for pn, p in list(m.named_parameters(recurse=rec)) + list(m.named_buffers(recurse=rec)):
                if p is None:
                    continue
                qual = canonical.get(id(p), n.target + "." + pn)
                params[pn] = qual
                add_param(qual, p)
            e["module"] = {"type": module_type_name(m), "attrs": module_attrs(m),
                           "training": bool(m.training), "params": params}
        st = n.meta.get("stack_trace") if stack_from_meta else getattr(n, "stack_trace", None)
        if n.op not in ("placeholder", "output"):
            stack = parse_stack(st, user_files, innermost_first)
            if stack:
                meta["stack"] = stack
        if meta:
            e["meta"] = meta
        nodes.append(e)

    graph = {"name": gname, "nodes": nodes}
    if output_keys is not None:
        graph["output_keys"] = output_keys

    # The reference run and the run that records random draws start from the same RNG state,
    # so the recorded draws are exactly the ones behind `expected`.
    rng = torch.get_rng_state()
    versions = {k: b._version for k, b in buffers.items()}
    try:
        outs, grads, any_grad = compute_expected(fn, example_inputs, grad_params, placeholders)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        # the model's own error in PyTorch's eager run (an in-place write autograd needs undone,
        # a Python attribute forward set to a traced value while torch.fx traced it): say so
        # with the user's line instead of a traceback through the exporter
        raise CaptureError(
            "gcdbg exporter: PyTorch's own run of %r on the example inputs (the reference run: "
            "forward, then the gradients) failed%s: %s: %s\n  what to change: the model fails "
            "in PyTorch itself, outside gcdbg: fix it so that the forward and `loss.backward()` "
            "run eagerly; if they do, look for Python state forward changes (`self.ptr = ...` "
            "computed from a tensor's shape holds a torch.fx proxy after tracing)"
            % (getattr(fn, "__name__", type(fn).__name__), _traceback_line(e.__traceback__),
               type(e).__name__, str(e).split("\n")[0])) from e
    # expected.buffers: every buffer the step mutated (BatchNorm running stats and
    # num_batches_tracked in training mode), by qualified name, after the step
    # (ATen's batch_norm writes running stats through raw pointers, without a version bump:
    # a buffer counts as mutated when its version or its value changed)
    after = {k: b.detach().clone() for k, b in buffers.items()
             if b._version != versions[k] or not _same_values(b, snapshot[k])}
    restore_buffers()
    torch.set_rng_state(rng)
    # the same run again, from the same state: a value that is not bitwise the same is no
    # reference (PyTorch reading uninitialised memory): expected.unstable lists it
    gcdbg_selfcheck.scribble(list(values.values()) + list(grads.values()))
    outs2, grads2, _ = compute_expected(fn, example_inputs, grad_params, placeholders)
    after2 = {k: b.detach().clone() for k, b in buffers.items()
              if b._version != versions[k] or not _same_values(b, snapshot[k])}
    unstable = gcdbg_selfcheck.unstable((outs, grads, after), (outs2, grads2, after2))
    restore_buffers()
    torch.set_rng_state(rng)
    # a model or function with gcdbg_record_random = False leaves its draws unrecorded:
    # gcdbg then draws its own numbers (Philox) and says the comparison is not elementwise
    draws = record_random(gm, example_inputs, outs) if getattr(fn, "gcdbg_record_random", True) else {}
    restore_buffers()
    expected = {"outputs": [store.tensor(_as_tensor(o), "%s/expected/outputs/%d" % (gname, i))
                            for i, o in enumerate(outs)]}
    if any_grad:
        expected["grad_outputs"] = "ones"
        expected["grads"] = {k: store.tensor(g, "%s/expected/grads/%s" % (gname, k))
                             for k, g in grads.items()}
        # the targets PyTorch gave no gradient (None: nothing from them reaches an output that
        # needs grad): gcdbg's must be zero there, which it checks without a zero tensor here
        none = [k for k in list(grad_params) + [placeholders[i] for i, x in enumerate(example_inputs)
                                                if isinstance(x, torch.Tensor) and x.requires_grad]
                if k not in grads]
        if none:
            expected["no_grad"] = none
    if after:
        expected["buffers"] = {k: store.tensor(v, "%s/expected/buffers/%s" % (gname, k))
                               for k, v in after.items()}
    if draws:
        expected["random"] = {k: store.tensor(v, "%s/expected/random/%s" % (gname, k))
                              for k, v in draws.items()}
    if unstable:
        expected["unstable"] = unstable
    graph["expected"] = expected
    if runs:
        graph["timing"] = measure(fn, example_inputs, runs, any_grad)
        restore_buffers()
    return graph


def _is_namedtuple(v):
    return isinstance(v, tuple) and hasattr(type(v), "_fields")


def _flatten_output_arg(a):
    """The output node's value as the trace contract wants it (a node, or a list of nodes).

    A forward returning a dict (Hugging Face style {"logits": ..., "loss": ...}) or a
    namedtuple is flattened into a plain list of its leaves in the order _flatten (and so
    expected.outputs) walks them: dict values in insertion order, namedtuple fields in
    declaration order, nested tuples/lists depth first. Returns (value, keys): keys names each
    leaf by its path ("logits", "hidden.0") and is None when the output needed no flattening.
    A leaf that is neither a node nor a Python number (None, a string, an object) is refused
    with a CaptureError: return a tuple of tensors instead."""
    def structured(v):
        if isinstance(v, dict) or _is_namedtuple(v):
            return True
        if isinstance(v, (tuple, list)):
            return any(structured(x) for x in v)
        return False

    if not structured(a):
        return a, None
    leaves, keys = [], []

    def walk(v, path):
        if isinstance(v, dict):
            items = [(str(k), x) for k, x in v.items()]
        elif _is_namedtuple(v):
            items = list(zip(type(v)._fields, v))
        elif isinstance(v, (tuple, list)):
            items = [(str(i), x) for i, x in enumerate(v)]
        else:
            if not isinstance(v, Node) and (v is None or isinstance(v, bool) or
                                            not isinstance(v, (int, float))):
                raise CaptureError(
                    "gcdbg exporter: the model's output %r is %s, which a trace cannot hold as an "
                    "output\n  what to change: return a tuple of tensors from forward (gcdbg "
                    "flattens dict and namedtuple outputs whose leaves are all tensors)"
                    % (path or "output", "None" if v is None else type(v).__name__))
            leaves.append(v)
            keys.append(path)
            return
        for k, x in items:
            walk(x, k if not path else path + "." + k)
    walk(a, "")
    return tuple(leaves), keys


def _as_tensor(v):
    """An expected output as a TENSOR value: Python scalars returned by the model become 0-d
    tensors (bool -> bool, int -> int64, float -> float64) so outputs stay aligned with the
    output node."""
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, bool):
        return torch.tensor(v, dtype=torch.bool)
    if isinstance(v, int):
        return torch.tensor(v, dtype=torch.int64)
    if isinstance(v, float):
        return torch.tensor(v, dtype=torch.float64)
    raise EncodeError("output value %r of type %s is not a tensor or a Python scalar"
                      % (v, type(v).__name__))


def _state_values(fn):
    """Copies of a module's parameters and buffers (empty for a function)."""
    if not isinstance(fn, torch.nn.Module):
        return {}
    state = dict(fn.named_parameters())
    state.update(fn.named_buffers())
    return {k: (t, t.detach().clone()) for k, t in state.items()}


def _same_values(a, b):
    """Whether a tensor still holds the values of its snapshot b: torch.equal, except that a
    NaN equals a NaN (a buffer filled with NaN, a NaN constant, is unchanged by a run that
    only reads it; torch.equal called it changed, and the trace then listed it as mutated or
    the export refused the model as written while tracing)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return torch.equal(a, b)


def _refuse_trace_time_writes(fn, before):
    """Refuse a model whose parameters or buffers changed while torch.fx traced its forward.
    torch.fx passes proxies for the inputs, parameters and buffers it sees, but a write through
    `.data` (MoCo's momentum update `param_k.data.mul_(m).add_(param_q.data, alpha=1 - m)` in
    forward) or on a tensor reached another way runs on the real tensor, once, while tracing:
    the graph does not hold it, and the reference run applies it once more."""
    changed = [k for k, (t, v) in before.items()
               if not _same_values(t.detach(), v)]
    if not changed:
        return
    with torch.no_grad():  # leave the model as make() gave it
        for k in changed:
            t, v = before[k]
            if t.shape == v.shape:
                t.copy_(v)
    more = " (and %d more)" % (len(changed) - 1) if len(changed) > 1 else ""
    raise CaptureError(
        "gcdbg exporter: cannot capture model %r with torch.fx: its forward changed %r%s while "
        "torch.fx traced it, outside the graph: a write through `.data` (MoCo's momentum update "
        "`param_k.data.mul_(m).add_(param_q.data, alpha=1 - m)` inside forward) or on a tensor "
        "torch.fx does not trace runs once on the real tensor while tracing, so the trace would "
        "hold neither the update nor the values PyTorch's reference run starts from\n"
        "  what to change: make the update outside forward (in the training step, before "
        "calling the model), or keep the copy in buffers (register_buffer) and update them "
        "without `.data` inside `with torch.no_grad():`"
        % (type(fn).__name__, changed[0], more))


def _prepare(model, train):
    """Put a module in train/eval mode; in inference mode switch requires_grad off on its
    parameters. Returns a restore callback."""
    if not isinstance(model, torch.nn.Module):
        return lambda: None
    modes = [(m, m.training) for m in model.modules()]
    flags = [(p, p.requires_grad) for p in model.parameters()]
    # train: every module keeps the mode the user set (a frozen BatchNorm in eval() inside
    # a model in training stays in eval); inference: model.eval() and no grads
    if not train:
        model.eval()
        for p, _ in flags:
            p.requires_grad_(False)

    def restore():
        for m, t in modes:
            m.training = t
        for p, f in flags:
            p.requires_grad_(f)
    return restore


def _normalize_break(b):
    """break_reason_or_None -> {"reason", "stack"} or None. Accepts a string, a dict with
    reason/stack, or a (reason, [FRAME, ...]) pair."""
    if b is None:
        return None
    if isinstance(b, str):
        return {"reason": b, "stack": []}
    if isinstance(b, dict):
        return {"reason": str(b.get("reason", "")), "stack": list(b.get("stack", []))}
    reason, stack = b
    return {"reason": str(reason), "stack": list(stack)}


def _collect_sources(model_or_fn, sources, pieces):
    files = []
    if sources:
        files = [os.path.abspath(s) for s in sources]
    else:
        for obj in [model_or_fn] + [p[0] for p in pieces]:
            f = _source_file_of(obj) if obj is not None else None
            if f and f not in files:
                files.append(f)
    user_files = set(files) | {os.path.realpath(f) for f in files}
    src = []
    for f in files:
        try:
            with open(f, encoding="utf-8") as fh:
                src.append({"file": os.path.basename(f), "text": fh.read()})
        except OSError:
            pass
    return src, user_files


def _write_json(trace, out_path):
    text = json.dumps(trace, indent=1, allow_nan=False)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)
        f.write("\n")


def export(model_or_fn, example_inputs, name, out_path, *, train=False, graph_breaks=None,
           sources=None, inline_limit_bytes=4096, runs=20, method="fx", dynamic=None):
    """Export model_or_fn on example_inputs as a gcdbg trace at out_path.

    graph_breaks: optional list of (fn, example_inputs, break_reason_or_None) pieces, each traced
      as one graph in order, to emulate the graphs Dynamo would produce on PyTorch 1.13.
      break_reason_or_None is a string, {"reason", "stack"} or (reason, [FRAME...]); every graph
      but the last gets a `break`.
    method: "fx" (torch.fx.symbolic_trace), "dynamo" (torch.compile, PyTorch 2.x; tested with 2.6)
      or "aten" (torch.compile, AOTAutograd's aten-level inference graphs; PyTorch 2.x).
    dynamic: torch.compile's dynamic flag, for "dynamo" and "aten".
    Returns the trace dict (as written)."""
    example_inputs = tuple(example_inputs)
    # the trace's folder (and its sidecar's) is made if missing, as `-o out/m.json` expects
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    if method in ("dynamo", "aten"):
        return export_dynamo(model_or_fn, example_inputs, name, out_path, train=train,
                             sources=sources, inline_limit_bytes=inline_limit_bytes, runs=runs,
                             aten=method == "aten", dynamic=dynamic)
    if method != "fx":
        raise ValueError("unknown method %r (want 'fx', 'dynamo' or 'aten')" % method)

    pieces = list(graph_breaks) if graph_breaks else [(model_or_fn, example_inputs, None)]
    src, user_files = _collect_sources(model_or_fn, sources, pieces)
    store = TensorStore(out_path, name, inline_limit_bytes)
    top_tensors = {}
    graphs = []
    multi = len(pieces) > 1
    for i, (fn, ins, brk) in enumerate(pieces):
        ins = tuple(ins)
        restore = _prepare(fn, train)
        try:
            before = _state_values(fn)
            gm = fx_capture(fn, ins)
            _refuse_trace_time_writes(fn, before)
            graph_tensors = {} if multi else top_tensors
            g = export_graph(gm, fn, ins, "g%d" % i, store, top_tensors, graph_tensors,
                             train=train, user_files=user_files, innermost_first=True, runs=runs)
        finally:
            restore()
        if multi:
            g["tensors"] = graph_tensors
            # keep the documented key order: tensors after guards/break, before expected
            g = _order_graph(g)
        if i < len(pieces) - 1:
            b = _normalize_break(brk)
            if b is not None:
                g["break"] = b
                g = _order_graph(g)
        graphs.append(g)

    trace = {
        "format": "gcdbg.trace",
        "version": 1,
        "name": name,
        "producer": {"tool": TOOL, "torch": torch.__version__, "method": "fx.symbolic_trace"},
        "sources": src,
        "graphs": graphs,
        "tensors": top_tensors,
    }
    store.write()
    _write_json(trace, out_path)
    return trace


_GRAPH_KEYS = ["name", "nodes", "break", "guards", "tensors", "expected", "timing"]


def _order_graph(g):
    out = {k: g[k] for k in _GRAPH_KEYS if k in g}
    out.update({k: v for k, v in g.items() if k not in out})
    return out


# ---------------------------------------------------------------------------------------------
# PyTorch 2.x: Dynamo path (tested with PyTorch 2.6, Debian trixie's python3-torch; fixtures/pt2)


def _guard_json(g):
    """GUARD from a torch._guards.Guard: kind = create_fn name upper-cased (TENSOR_MATCH, ...),
    source = guard.name (e.g. L['x']), text = the guard's code_list when recorded, else str()."""
    kind = getattr(g, "create_fn_name", None)
    if callable(kind):  # a method on torch 2.x Guard
        try:
            kind = kind()
        except Exception:
            kind = None
    if not kind:
        fn = getattr(g, "create_fn", None)
        fn = getattr(fn, "func", fn)  # functools.partial
        kind = getattr(fn, "__name__", None) or str(fn)
    code = getattr(g, "code_list", None)
    text = "; ".join(str(c) for c in code) if code else str(g)
    return {"kind": str(kind).upper(), "source": str(getattr(g, "name", "")), "text": text}


def _explain(model, inputs):
    """(break reasons [{"reason","stack"}], guards [GUARD]) from torch._dynamo.explain, across
    the 2.0 (tuple) and 2.1+ (ExplainOutput) APIs. Failures give empty lists."""
    import torch._dynamo as dynamo
    reasons, guards = [], []
    try:
        dynamo.reset()
        try:
            out = dynamo.explain(model)(*inputs)  # 2.1+: returns ExplainOutput
            brs = getattr(out, "break_reasons", None) or []
            gds = getattr(out, "out_guards", None) or []
        except Exception:
            dynamo.reset()
            res = dynamo.explain(model, *inputs)  # 2.0: a tuple
            if isinstance(res, tuple):
                gds, brs = res[1], res[4]
            else:
                brs = getattr(res, "break_reasons", None) or []
                gds = getattr(res, "out_guards", None) or []
        for br in brs:
            stack = []
            for fs in getattr(br, "user_stack", None) or []:
                stack.append({"file": os.path.basename(fs.filename), "line": int(fs.lineno),
                              "func": fs.name, "code": (fs.line or "").strip()})
            reasons.append({"reason": str(getattr(br, "reason", br)), "stack": stack})
        guards = [_guard_json(g) for g in gds]
    except Exception as ex:  # explain is best-effort
        print("gcdbg-export: torch._dynamo.explain failed: %s" % ex, file=sys.stderr)
    finally:
        dynamo.reset()
    return reasons, guards


def _aten_backend(captured):
    """A torch.compile backend that records AOTAutograd's aten-level inference graph: Dynamo's
    graph functionalized (in-place writes become slice_scatter, copy_, ...) and traced to
    torch.ops.aten.* ops, the graph Inductor receives before its own decompositions. Parameters
    are inputs of that graph (arg0_1, ...)."""
    from functorch.compile import make_boxed_func
    from torch._functorch.aot_autograd import aot_module_simplified

    def backend(gm, example_inputs):
        def fw(aten_gm, aten_inputs):
            rec = [aten_gm, None, _compile_id()]
            captured.append(rec)

            def run(args):
                if rec[1] is None:
                    rec[1] = _clone_inputs(args)
                return aten_gm(*args)
            run._boxed_call = True
            return run
        return aot_module_simplified(gm, example_inputs, fw_compiler=fw, bw_compiler=make_boxed_func)
    return backend


class _GuardTreeRecorder:
    """Records Dynamo's guard trees (the dynamo_cpp_guards_str events TORCH_TRACE logs, PyTorch
    2.4+) by compile id ("0/0"), through torch._logging's structured trace log, while the model
    compiles. Does nothing where that log does not exist."""

    def __init__(self):
        import logging
        self.trees = {}
        outer = self

        class _Handler(logging.Handler):
            def emit(self, record):
                meta = getattr(record, "metadata", None) or {}
                if "dynamo_cpp_guards_str" in meta:
                    cid = "%s/%s" % (meta.get("frame_id"), meta.get("frame_compile_id"))
                    outer.trees[cid] = getattr(record, "payload", "") or ""
        self.handler = _Handler()
        try:
            import torch._logging._internal as tl
            self.log = tl.trace_log
        except (ImportError, AttributeError):
            self.log = None

    def __enter__(self):
        if self.log is not None:
            self.log.addHandler(self.handler)
        return self

    def __exit__(self, *exc):
        if self.log is not None:
            self.log.removeHandler(self.handler)
        return False


def _compile_id():
    """The compile id ("0/0") of the Dynamo compilation running now, None outside one."""
    try:
        cid = torch._guards.CompileContext.current_compile_id()
    except AttributeError:
        return None
    if cid is None:
        return None
    return "%s/%s" % (cid.frame_id, cid.frame_compile_id)


# a guard line; Dynamo pads the code and appends "# file.py:12 in fn" after two or more spaces
_CPP_GUARD = re.compile(r"^([| ]*)\+- ([A-Z][A-Z_]*): (.*?)(?:\s{2,}#.*)?\s*$")
_CPP_MANAGER = re.compile(r"^([| ]*)\+- \w*GuardManager: source=([^,]*)")


def _parse_cpp_guards(text):
    """GUARDs from a dynamo_cpp_guards_str tree: kind, the innermost manager's source, code."""
    out = []
    scopes = []
    for line in text.splitlines():
        m = _CPP_MANAGER.match(line)
        if m:
            d = len(m.group(1))
            while scopes and scopes[-1][0] >= d:
                scopes.pop()
            scopes.append((d, m.group(2)))
            continue
        m = _CPP_GUARD.match(line)
        if not m:
            continue
        d = len(m.group(1))
        while scopes and scopes[-1][0] >= d:
            scopes.pop()
        src = scopes[-1][1] if scopes else ""
        out.append({"kind": m.group(2), "source": src, "text": m.group(3).strip()})
    return out


def export_dynamo(model, example_inputs, name, out_path, *, train=False, sources=None,
                  inline_limit_bytes=4096, runs=20, aten=False, dynamic=None):
    """Capture with torch.compile (PyTorch 2.x; tested with 2.6): one graph per graph break.
    aten=True records AOTAutograd's aten-level inference graphs instead of Dynamo's torch-level
    ones (inference only). dynamic is torch.compile's flag (True: sizes become symbols, Sym
    inputs; None: Dynamo's default, static until a size changes)."""
    if not hasattr(torch, "compile"):
        raise RuntimeError("method='dynamo' needs PyTorch 2.x (torch.compile); this is torch %s"
                           % torch.__version__)
    import torch._dynamo as dynamo
    if aten and train:
        raise ValueError("method 'aten' records inference graphs; use method 'dynamo' for training")

    restore = _prepare(model, train)
    try:
        captured = []  # [gm, real inputs or None]

        def gcdbg_backend(gm, backend_inputs):
            rec = [gm, None, _compile_id()]
            captured.append(rec)

            def run(*args):
                if rec[1] is None:  # the real tensors of the first call (not fake ones)
                    rec[1] = _clone_inputs(args)
                return gm.forward(*args)
            return run

        dynamo.reset()
        backend = _aten_backend(captured) if aten else gcdbg_backend
        compiled = torch.compile(model, backend=backend, dynamic=dynamic)
        with _GuardTreeRecorder() as trees, torch.set_grad_enabled(bool(train) and not aten):
            compiled(*_clone_inputs(example_inputs))
        dynamo.reset()
        reasons, guards = _explain(model, _clone_inputs(example_inputs))

        src, user_files = _collect_sources(model, sources, [])
        store = TensorStore(out_path, name, inline_limit_bytes)
        top_tensors = {}
        graphs = []
        multi = len(captured) > 1
        for i, (gm, ins, cid) in enumerate(captured):
            if ins is None:
                raise RuntimeError("dynamo graph %d was compiled but never run" % i)
            graph_tensors = {} if multi else top_tensors
            # the graph's own eager result is its reference: its inputs are what Dynamo fed it
            g = export_graph(gm, gm, ins, "g%d" % i, store, top_tensors, graph_tensors,
                             train=train, user_files=user_files, innermost_first=False,
                             runs=runs, stack_from_meta=True)
            # parameters are inputs of Dynamo's graph since 2.5: mark the trainable ones as
            # the contract marks trainable parameters
            phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
            for n, x in zip(phs, ins):
                t = graph_tensors.get(str(n.target))
                if isinstance(x, torch.Tensor) and x.requires_grad and isinstance(t, dict):
                    t["requires_grad"] = True
            if multi:
                g["tensors"] = graph_tensors
            if i < len(captured) - 1 and i < len(reasons):
                g["break"] = reasons[i]
            if cid in trees.trees:
                # each graph's own guards, from its frame's guard tree: every guard with its
                # kind and source (explain's out_guards print many without code on 2.6)
                g["guards"] = _parse_cpp_guards(trees.trees[cid])
            elif i == 0 and guards:
                g["guards"] = guards  # explain gives them for the whole call
            graphs.append(_order_graph(g))
    finally:
        restore()

    method = "dynamo"
    if aten:
        method = "dynamo+aot_autograd"
    trace = {
        "format": "gcdbg.trace",
        "version": 1,
        "name": name,
        "producer": {"tool": TOOL, "torch": torch.__version__, "method": method},
        "sources": src,
        "graphs": graphs,
        "tensors": top_tensors,
    }
    if dynamic:
        trace["producer"]["dynamic"] = True
    store.write()
    _write_json(trace, out_path)
    return trace


# ---------------------------------------------------------------------------------------------
# CLI


def load_model_file(path):
    path = os.path.abspath(path)
    mod_name = "gcdbg_model_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(mod_name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.pop(0)
    if not hasattr(mod, "make"):
        raise SystemExit("%s: defines no make()" % path)
    return mod


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="gcdbg_export.py",
        description="Export a PyTorch model to a gcdbg trace (format gcdbg.trace, version 1). "
        "MODEL.py must define make() returning (model_or_fn, example_inputs), or a dict with keys "
        "model, inputs and optionally name, train, graph_breaks, method. Module-level NAME and "
        "TRAIN are also honoured. torch.manual_seed(SEED) is called before make().")
    ap.add_argument("model", metavar="MODEL.py", help="Python file defining make()")
    ap.add_argument("-o", "--out", required=True, metavar="OUT.json",
                    help="trace to write; a sidecar OUT.safetensors (OUT's stem) is written beside it when "
                    "some tensor is larger than --inline-limit")
    ap.add_argument("--name", help="trace name (default: make()'s name, NAME, or OUT's stem)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--train", action="store_true", default=None,
                      help="parameters require grad; expected grads are recorded (default: make()'s "
                      "train or TRAIN, else inference: model.eval())")
    mode.add_argument("--eval", dest="train", action="store_false", default=None,
                      help="inference: model.eval(), no grads, whatever make()'s train or TRAIN say "
                      "(a training model's file exported in eval mode)")
    ap.add_argument("--method", choices=["fx", "dynamo", "aten"], default=None,
                    help="capture with torch.fx.symbolic_trace (default), torch.compile/Dynamo "
                    "(PyTorch 2.x, tested with 2.6), or aten: AOTAutograd's aten-level inference "
                    "graphs under torch.compile")
    ap.add_argument("--dynamic", action="store_true", default=None,
                    help="torch.compile(dynamic=True) for --method dynamo/aten (default: make()'s "
                    "dynamic)")
    ap.add_argument("--inline-limit", type=int, default=4096, metavar="BYTES",
                    help="tensors larger than this go to the safetensors sidecar (default 4096)")
    ap.add_argument("--runs", type=int, default=20,
                    help="timed runs for the eager medians; 0 omits timing (default 20)")
    ap.add_argument("--seed", type=int, default=0, help="torch.manual_seed before make() (default 0)")
    args = ap.parse_args(argv)

    _checkpoint_through()
    torch.manual_seed(args.seed)
    mod = load_model_file(args.model)
    made = mod.make()
    if isinstance(made, dict):
        cfg = dict(made)
        model, inputs = cfg.pop("model"), cfg.pop("inputs")
    else:
        model, inputs = made[0], made[1]
        cfg = {}
    name = args.name or cfg.get("name") or getattr(mod, "NAME", None) or \
        os.path.splitext(os.path.basename(args.out))[0]
    train = args.train if args.train is not None else cfg.get("train", getattr(mod, "TRAIN", False))
    method = args.method or cfg.get("method", "fx")
    try:
        export(model, tuple(inputs), name, args.out, train=bool(train),
               graph_breaks=cfg.get("graph_breaks"), sources=cfg.get("sources") or [args.model],
               inline_limit_bytes=args.inline_limit, runs=args.runs, method=method,
               dynamic=args.dynamic if args.dynamic is not None else cfg.get("dynamic"))
    except CaptureError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    print("wrote %s" % args.out)


if __name__ == "__main__":
    main()
