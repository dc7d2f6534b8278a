#!/usr/bin/env python3
"""Time a gcdbg trace's captured graphs under PyTorch eager, for `gcdbg bench`.

    /usr/bin/python3 exporter/bench_eager.py TRACE.json [--runs N]

The trace holds no model file, so each graph is rebuilt from the trace itself as a
torch.fx GraphModule: call_function targets are resolved by their qualified names
(torch.*, operator.*, builtins.*), call_method nodes stay Tensor methods, and call_module
nodes get a module of the recorded type carrying the recorded attributes and tensors. The
graph is timed with gcdbg_export.measure (2 threads, the producer's protocol): forward, plus
backward of sum(out * ones) when the trace has expected gradients.

Prints one JSON object: {"torch": version, "graphs": [{"name", "eager_forward_ms",
"eager_backward_ms"?}]}. Exits 1 with a message on stderr when a graph cannot be rebuilt.
"""

import base64
import builtins
import importlib
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.fx  # noqa: E402

from gcdbg_export import measure  # noqa: E402

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


def make_module(spec, tensors, lookup):
    mod_name, _, cls_name = spec["type"].rpartition(".")
    cls = getattr(importlib.import_module(mod_name), cls_name)
    # The constructor's signature varies; the recorded attributes are what
    # forward reads, so set them on a bare instance.
    m = cls.__new__(cls)
    torch.nn.Module.__init__(m)
    for k, v in spec.get("attrs", {}).items():
        v = decode(v, {})
        setattr(m, k, v)
    for k, qual in spec.get("params", {}).items():
        t = lookup(qual)
        if t is None:
            setattr(m, k, None)
        elif t.is_floating_point():
            m.register_parameter(k, torch.nn.Parameter(t.detach().clone(), requires_grad=False))
        else:
            m.register_buffer(k, t)
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
        kwargs = decode(n.get("kwargs", {}), env)
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
            m = make_module(n["module"], tensors, lookup)
            root.add_module(attr, m)
            for k, qual in n["module"].get("params", {}).items():
                p = getattr(m, k)
                if isinstance(p, torch.nn.Parameter):
                    params[qual] = p
            env[name] = graph.call_module(attr, args, kwargs)
        elif op == "output":
            graph.output(args[0] if args else None)
    return torch.fx.GraphModule(root, graph), inputs, names, params


def main(argv):
    runs = 20
    if "--runs" in argv:
        i = argv.index("--runs")
        runs = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path = argv[0]
    with open(path) as f:
        trace = json.load(f)
    tensors = Tensors(os.path.dirname(os.path.abspath(path)))
    out = {"torch": torch.__version__, "graphs": []}
    for gi, g in enumerate(trace["graphs"]):
        name = g.get("name", "g%d" % gi)
        try:
            gm, inputs, names, params = build(g, trace.get("tensors", {}), tensors)
            grads = ((g.get("expected") or {}).get("grads")) or {}
            for t, target in zip(inputs, names):
                if target in grads and isinstance(t, torch.Tensor) and t.is_floating_point():
                    t.requires_grad_(True)
            for qual, p in params.items():
                if qual in grads and isinstance(p, torch.nn.Parameter):
                    p.requires_grad_(True)
            timing = measure(gm, inputs, runs, bool(grads))
        except Exception as e:  # report which graph, keep the message
            print("%s: graph %s: %s: %s" % (path, name, type(e).__name__, e), file=sys.stderr)
            return 1
        timing["name"] = name
        out["graphs"].append(timing)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
