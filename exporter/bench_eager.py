#!/usr/bin/env python3
"""Time a gcdbg trace's captured graphs under PyTorch eager, for `gcdbg bench`.

    /usr/bin/python3 exporter/bench_eager.py TRACE.json [--runs N]
    /usr/bin/python3 exporter/bench_eager.py --serve     (JSON lines: {"trace", "runs"})

The trace holds no model file, so each graph is rebuilt from the trace itself as a
torch.fx GraphModule: call_function targets are resolved by their qualified names
(torch.*, operator.*, builtins.*), call_method nodes stay Tensor methods, and call_module
nodes get a module built by its own constructor from the recorded attributes (PyTorch's
defaults for optional ones the trace omits), carrying the recorded tensors and training
flag. Each graph is timed warm (see time_graph and MALLOC_ENV): forward, plus the
backward from ones-tangents when the trace has expected gradients.

Prints one JSON object: {"torch": version, "graphs": [{"name", "eager_forward_ms",
"eager_backward_ms"?, "how"}]}. Exits 1 with a message naming the trace, graph and node
on stderr when a graph cannot be rebuilt.
"""

import base64
import builtins
import importlib
import inspect
import json
import math
import os
import statistics
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.fx  # noqa: E402


DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
          "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}
ST_DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16,
             "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32, "I8": torch.int8,
             "U8": torch.uint8, "BOOL": torch.bool}


def from_bytes(b, dtype, shape):
    if dtype == torch.bfloat16:
        return torch.frombuffer(bytearray(b), dtype=torch.int16).view(torch.bfloat16).reshape(shape).clone()
    if len(b) == 0:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(b), dtype=dtype).reshape(shape).clone()


class Tensors:
    """TENSOR entries of the trace (inline base64, safetensors sidecar, or init)."""

    def __init__(self, trace_dir):
        self.dir = trace_dir
        self.sidecars = {}

    def sidecar(self, name):
        if name not in self.sidecars:
            with open(os.path.join(self.dir, name), "rb") as f:
                data = f.read()
            n = struct.unpack("<Q", data[:8])[0]
            self.sidecars[name] = (json.loads(data[8:8 + n]), data[8 + n:])
        return self.sidecars[name]

    def load(self, e):
        if "items" in e:
            return tuple(self.load(x) if isinstance(x, dict) else None for x in e["items"])
        dtype, shape = DTYPES[e["dtype"]], e["shape"]
        if "data" in e:
            t = from_bytes(base64.b64decode(e["data"]), dtype, shape)
        elif "file" in e:
            header, blob = self.sidecar(e["file"])
            h = header[e["key"]]
            a, b = h["data_offsets"]
            t = from_bytes(blob[a:b], ST_DTYPES[h["dtype"]], h["shape"])
        else:  # init: the values do not matter for timing
            init = e.get("init", {})
            g = torch.Generator().manual_seed(int(init.get("seed", 0)))
            if dtype.is_floating_point:
                t = torch.randn(shape, generator=g).to(dtype)
            else:
                t = torch.zeros(shape, dtype=dtype)
        if e.get("requires_grad"):
            t.requires_grad_(True)
        return t


def decode(a, env):
    """An ARG (docs/trace-format.md) as a Python value; node references via env."""
    if isinstance(a, list):
        return tuple(decode(x, env) for x in a)
    if not isinstance(a, dict):
        return a
    if len(a) == 1:
        (k, v), = a.items()
        if k == "node":
            return env[v]
        if k == "list":
            return [decode(x, env) for x in v]
        if k == "dtype":
            return DTYPES[v]
        if k == "device":
            return torch.device(v)
        if k == "slice":
            return slice(*(decode(x, env) for x in v))
        if k == "ellipsis":
            return Ellipsis
        if k == "float":
            return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[v]
    return {k: decode(v, env) for k, v in a.items()}


def resolve(name):
    """A call_function target by its qualified name."""
    mod, _, attr = name.rpartition(".")
    if mod == "builtins":
        return getattr(builtins, attr)
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ValueError("cannot resolve target %r" % name)


# Modules whose forward depends on their training flag: without the trace's
# "training" they cannot be rebuilt faithfully (trace-format.md, module).
MODE_DEPENDENT = ("BatchNorm", "Dropout", "InstanceNorm", "AlphaDropout", "FeatureAlphaDropout",
                  "SyncBatchNorm", "LazyBatchNorm", "LazyInstanceNorm", "RNN", "LSTM", "GRU")


class RebuildError(Exception):
    pass


def forwarded_params(cls, sig):
    """The keyword parameters a constructor taking **kwargs forwards to a base class's
    __init__ (nn.LSTM/nn.GRU/nn.RNN take *args, **kwargs for RNNBase's input_size,
    hidden_size, num_layers, ...): the first base __init__ with explicit parameters,
    without those before its first parameter with a default that the subclass fills
    itself (RNNBase's mode, which nn.GRU passes as 'GRU')."""
    for base in cls.__mro__[1:]:
        init = base.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = list(inspect.signature(init).parameters.items())[1:]
        except (TypeError, ValueError):
            continue
        if not params or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for _, p in params):
            continue
        if base is torch.nn.modules.rnn.RNNBase:
            params = [(n, p) for n, p in params if n != "mode"]
        # a subclass may refuse a forwarded keyword even at its default (nn.GRU:
        # proj_size): such parameters are passed only when the trace's value differs
        return [(n, p.replace(kind=p.KEYWORD_ONLY)) for n, p in params]
    return sig


def make_module(spec, lookup, where):
    """A module of the recorded type built by its own constructor: the recorded attrs
    are passed where the constructor takes them, PyTorch's defaults fill what the trace
    omits (optional attrs such as padding_mode or max_norm), bias=False when the trace
    names no bias tensor. Then the recorded tensors replace the constructor's, and the
    recorded training flag is applied."""
    type_name = spec.get("type", "")
    mod_name, _, cls_name = type_name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(mod_name), cls_name)
    except (ImportError, AttributeError, ValueError) as e:
        raise RebuildError("%s: module type %r: %s" % (where, type_name, e))
    attrs = {k: decode(v, {}) for k, v in spec.get("attrs", {}).items()}
    params = spec.get("params", {})
    kw, missing = {}, []
    try:
        sig = list(inspect.signature(cls.__init__).parameters.items())[1:]
    except (TypeError, ValueError):
        sig = []
    if any(p.kind == p.VAR_KEYWORD for _, p in sig):
        sig = forwarded_params(cls, sig)
    for pname, p in sig:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or pname in ("device", "dtype"):
            continue
        if pname in attrs:
            v = attrs[pname]
            if p.kind == p.KEYWORD_ONLY and p.default is not inspect.Parameter.empty and v == p.default:
                continue  # forwarded_params: the default, left to the constructor
            kw[pname] = list(v) if isinstance(v, tuple) and pname == "normalized_shape" else v
        elif pname == "bias":
            kw[pname] = params.get("bias") is not None and lookup(params["bias"]) is not None
        elif pname in ("affine", "elementwise_affine") and "weight" in params:
            kw[pname] = params.get("weight") is not None
        elif p.default is inspect.Parameter.empty:
            missing.append(pname)
    if missing:
        raise RebuildError("%s: module %s: the trace has no %s and the constructor has no default"
                           % (where, type_name, ", ".join(missing)))
    try:
        with torch.no_grad():
            m = cls(**kw)
    except Exception as e:  # the constructor's own message, with where
        raise RebuildError("%s: module %s%r: %s: %s" % (where, type_name, kw, type(e).__name__, e))
    for k, v in attrs.items():
        if k not in kw and not isinstance(getattr(type(m), k, None), property):
            setattr(m, k, v)
    for key, qual in params.items():
        t = None if qual is None else lookup(qual)
        # a submodule's tensor (MultiheadAttention's "out_proj.weight") is set on the submodule:
        # register_parameter takes no dotted name (examples/review9 finding 2)
        owner, k = m, key
        if "." in key:
            path, k = key.rsplit(".", 1)
            try:
                owner = m.get_submodule(path)
            except AttributeError as e:
                raise RebuildError("%s: module %s: no submodule %r for %r" % (where, type_name, path, key)) from e
        if t is None:
            if k in owner._parameters:
                owner._parameters[k] = None
            elif k in owner._buffers:
                owner._buffers[k] = None
            else:
                setattr(owner, k, None)
        elif t.is_floating_point() and k not in owner._buffers:
            owner._parameters.pop(k, None)
            owner.register_parameter(k, torch.nn.Parameter(t.detach().clone(), requires_grad=False))
        else:
            owner._buffers.pop(k, None)
            owner.register_buffer(k, t.detach().clone())
    training = spec.get("training")
    if training is None:
        if any(cls_name.startswith(p) for p in MODE_DEPENDENT):
            raise RebuildError("%s: module %s: the trace does not record its training flag, "
                               "which decides what it computes" % (where, type_name))
        training = False
    m.train(bool(training))
    return m


def build(g, top, tensors):
    local = g.get("tensors", {})
    cache = {}

    def lookup(name):
        if name not in cache:
            e = local.get(name, top.get(name))
            cache[name] = None if e is None else tensors.load(e)
        return cache[name]

    root = torch.nn.Module()
    graph = torch.fx.Graph()
    env, inputs, params, names = {}, [], {}, []
    for n in g["nodes"]:
        op, target, name = n["op"], n["target"], n["name"]
        args = decode(n.get("args", []), env)
        # kwargs is a name -> ARG mapping, not an ARG: {"dtype": ARG} is the
        # keyword dtype= (torch.zeros_like(x, dtype=...)), not a dtype ARG.
        kwargs = {k: decode(v, env) for k, v in n.get("kwargs", {}).items()}
        if op == "placeholder":
            env[name] = graph.placeholder(name)
            t = lookup(target)
            if t is None:
                t = (n.get("meta") or {}).get("value")
            inputs.append(t)
            names.append(target)
        elif op == "get_attr":
            t = lookup(target)
            attr = "t_" + str(len(params))
            p = torch.nn.Parameter(t.detach().clone(), requires_grad=False) if t.is_floating_point() else t
            if isinstance(p, torch.nn.Parameter):
                root.register_parameter(attr, p)
            else:
                root.register_buffer(attr, p)
            params[target] = p
            env[name] = graph.get_attr(attr)
        elif op == "call_function":
            env[name] = graph.call_function(resolve(target), args, kwargs)
        elif op == "call_method":
            env[name] = graph.call_method(target, args, kwargs)
        elif op == "call_module":
            attr = "m_" + name
            m = make_module(n["module"], lookup, "graph %s: node %s" % (g.get("name", "?"), name))
            root.add_module(attr, m)
            for k, qual in n["module"].get("params", {}).items():
                path, _, leaf = k.rpartition(".")
                p = getattr(m.get_submodule(path) if path else m, leaf, None)
                if isinstance(p, torch.nn.Parameter):
                    params[qual] = p
            env[name] = graph.call_module(attr, args, kwargs)
        elif op == "output":
            graph.output(args[0] if args else None)
    return torch.fx.GraphModule(root, graph), inputs, names, params


# How PyTorch is timed (printed in every result as "how"): its best steady state,
# as PyTorch's CPU performance guide sets it up. glibc keeps freed big blocks
# (MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ read at process start, so the script
# re-executes itself with them set), the previous call's outputs and gradients are
# dropped before the next call (their blocks are reused instead of fresh mmaps that
# page-fault), inputs are cloned outside the timed region, `warmup` untimed calls
# come first, and the median of the timed calls is reported.
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(1 << 34), "MALLOC_TRIM_THRESHOLD_": str(1 << 34)}


def ensure_malloc_env(argv):
    if all(os.environ.get(k) == v for k, v in MALLOC_ENV.items()):
        return
    env = dict(os.environ)
    env.update(MALLOC_ENV)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + argv, env)


def how(threads, runs, warmup):
    # OMP_WAIT_POLICY as this process got it: `gcdbg bench` starts the server
    # under the compiled worker's OpenMP environment (compiler.OpenMPEnv).
    return ("torch %s, %d threads, OMP_WAIT_POLICY=%s, median of the timed calls (%d per pass), after %d warm-up calls; "
            "outputs and grads dropped before each call, inputs cloned outside the timed region; MALLOC_MMAP_THRESHOLD_=%s "
            "MALLOC_TRIM_THRESHOLD_=%s" % (torch.__version__, threads,
                                            os.environ.get("OMP_WAIT_POLICY", "unset (libgomp's default)"), runs, warmup,
                                            os.environ.get("MALLOC_MMAP_THRESHOLD_", "unset"),
                                            os.environ.get("MALLOC_TRIM_THRESHOLD_", "unset")))


def _tensors(res):
    if isinstance(res, torch.Tensor):
        return [res]
    if isinstance(res, (list, tuple)):
        return [t for x in res for t in _tensors(x)]
    if isinstance(res, dict):
        return [t for x in res.values() for t in _tensors(x)]
    return []


def time_graph(gm, inputs, params, runs, backward, warmup=3):
    """Median forward (and backward) ms of gm in its warm steady state. The backward
    is autograd.backward(outputs, ones), what gcdbg's backward program computes from
    its tangents; gradients are set to None before each call (zero_grad's default)."""
    # OMP_NUM_THREADS, when set, is the thread count of both sides (the
    # compiled kernels' OpenMP reads it too): a one-thread comparison.
    threads = int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or os.cpu_count() or 1
    torch.set_num_threads(threads)
    fwd, bwd = [], []
    res = None
    leaves = [p for p in params.values() if isinstance(p, torch.Tensor) and p.requires_grad]
    for i in range(warmup + runs):
        res = None  # drop the previous outputs (and their graph) first
        for p in leaves:
            p.grad = None
        ins = []
        for x in inputs:
            if isinstance(x, torch.Tensor):
                c = x.detach().clone()
                c.requires_grad_(x.requires_grad)
                ins.append(c)
            else:
                ins.append(x)
        with torch.set_grad_enabled(backward):
            t0 = time.perf_counter()
            res = gm(*ins)
            t1 = time.perf_counter()
        if i >= warmup:
            fwd.append((t1 - t0) * 1e3)
        if backward:
            outs = [o for o in _tensors(res) if o.is_floating_point() and o.requires_grad]
            if not outs:
                backward = False
                continue
            seeds = [torch.ones_like(o) for o in outs]
            t0 = time.perf_counter()
            torch.autograd.backward(outs, seeds)
            t1 = time.perf_counter()
            if i >= warmup:
                bwd.append((t1 - t0) * 1e3)
            del outs, seeds
        del ins
    res = None
    timing = {"device": "cpu", "threads": threads, "runs": runs,
              "eager_forward_ms": round(statistics.median(fwd), 4),
              "how": how(threads, runs, warmup)}
    if bwd:
        timing["eager_backward_ms"] = round(statistics.median(bwd), 4)
    # each timed call's forward + backward, for a caller pooling several passes
    timing["calls_ms"] = [round(f + (bwd[i] if i < len(bwd) else 0.0), 4) for i, f in enumerate(fwd)]
    return timing


class Bench:
    """Built graphs per trace path, so that a server keeps them warm."""

    def __init__(self):
        self.built = {}

    def graphs(self, path):
        if path not in self.built:
            with open(path) as f:
                trace = json.load(f)
            tensors = Tensors(os.path.dirname(os.path.abspath(path)))
            out = []
            for gi, g in enumerate(trace["graphs"]):
                name = g.get("name", "g%d" % gi)
                try:
                    gm, inputs, names, params = build(g, trace.get("tensors", {}), tensors)
                except RebuildError as e:
                    raise RebuildError("%s: %s" % (path, e))
                except Exception as e:  # name the graph, keep the message
                    raise RebuildError("%s: graph %s: %s: %s" % (path, name, type(e).__name__, e))
                grads = ((g.get("expected") or {}).get("grads")) or {}
                for t, target in zip(inputs, names):
                    if target in grads and isinstance(t, torch.Tensor) and t.is_floating_point():
                        t.requires_grad_(True)
                for qual, p in params.items():
                    if qual in grads and isinstance(p, torch.nn.Parameter):
                        p.requires_grad_(True)
                out.append((name, gm, inputs, params, bool(grads)))
            self.built[path] = out
        return self.built[path]

    def time(self, path, runs):
        res = {"torch": torch.__version__, "graphs": []}
        for name, gm, inputs, params, backward in self.graphs(path):
            try:
                timing = time_graph(gm, inputs, params, runs, backward)
            except Exception as e:
                raise RebuildError("%s: graph %s: %s: %s" % (path, name, type(e).__name__, e))
            timing["name"] = name
            res["graphs"].append(timing)
        return res


def serve():
    """One JSON request per stdin line, {"trace": PATH, "runs": N}; one JSON reply per
    line: the result, or {"error": message}. Traces stay built between requests."""
    b = Bench()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            reply = b.time(req["trace"], int(req.get("runs", 20)))
        except Exception as e:
            reply = {"error": str(e)}
        print(json.dumps(reply), flush=True)
    return 0


def main(argv):
    ensure_malloc_env(argv)
    if argv == ["--serve"]:
        return serve()
    runs = 20
    if "--runs" in argv:
        i = argv.index("--runs")
        runs = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        out = Bench().time(argv[0], runs)
    except RebuildError as e:
        print(e, file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
