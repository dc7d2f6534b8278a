#!/usr/bin/env python3
"""Validate gcdbg trace files (format "gcdbg.trace", version 1) structurally.

    /usr/bin/python3 exporter/check_trace.py TRACE.json [TRACE.json ...]

Checks: format/version; graphs non-empty; per graph unique node names, known op kinds, args and
kwargs referencing only earlier nodes, exactly one output node and it is last, call_module nodes
carry module.type/attrs/params with params naming tensors; placeholders/get_attr have tensors (or
meta.value for non-tensor placeholders); module.training is a bool; expected.buffers name
tensors and expected.random call nodes; every TENSOR (top level, graph level, expected) has a
known dtype, a non-negative shape, and data bytes (base64 or safetensors sidecar inside the
trace folder, header agreeing on dtype/shape) of exactly numel*itemsize; JSON numbers are finite.
Runs no model. Exits 1 and prints every problem found, naming graph/node/field.
Uses only the standard library.
"""

import base64
import json
import os
import sys

DTYPE_SIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
              "int8": 1, "uint8": 1, "bool": 1}
ST_CODE = {"float32": "F32", "float64": "F64", "float16": "F16", "bfloat16": "BF16",
           "int64": "I64", "int32": "I32", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
OPS = {"placeholder", "get_attr", "call_function", "call_method", "call_module", "output"}
ARG_TAGS = {"list", "node", "dtype", "device", "slice", "ellipsis", "float"}


def _reject_constant(c):
    raise ValueError("non-finite JSON number %s" % c)


class Checker:
    def __init__(self, path):
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        self.errors = []
        self.sidecars = {}

    def err(self, where, msg):
        self.errors.append("%s: %s: %s" % (self.path, where, msg))

    def sidecar(self, fname, where):
        if fname in self.sidecars:
            return self.sidecars[fname]
        if os.path.isabs(fname) or ".." in fname.replace("\\", "/").split("/"):
            self.err(where, "file %r leaves the trace folder" % fname)
            return None
        p = os.path.join(self.dir, fname)
        try:
            with open(p, "rb") as f:
                raw = f.read()
            n = int.from_bytes(raw[:8], "little")
            header = json.loads(raw[8:8 + n].decode("utf-8"))
            self.sidecars[fname] = (header, raw[8 + n:])
        except Exception as ex:
            self.err(where, "cannot read safetensors %r: %s" % (fname, ex))
            self.sidecars[fname] = None
        return self.sidecars[fname]

    def tensor(self, t, where):
        if not isinstance(t, dict):
            self.err(where, "TENSOR is not an object")
            return
        dt = t.get("dtype")
        if dt not in DTYPE_SIZE:
            self.err(where, "unknown dtype %r" % dt)
            return
        shape = t.get("shape")
        if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool)
                                                  for d in shape):
            self.err(where, "shape %r is not a list of ints" % (shape,))
            return
        if any(d < 0 for d in shape):
            self.err(where, "negative dimension in shape %r" % (shape,))
            return
        numel = 1
        for d in shape:
            numel *= d
        if numel >= 2 ** 62:
            self.err(where, "element count overflows")
            return
        want = numel * DTYPE_SIZE[dt]
        kinds = [k for k in ("data", "file", "init") if k in t]
        if len(kinds) != 1:
            self.err(where, "needs exactly one of data/file/init, has %s" % kinds)
            return
        if "data" in t:
            try:
                b = base64.b64decode(t["data"], validate=True)
            except Exception as ex:
                self.err(where, "bad base64: %s" % ex)
                return
            if len(b) != want:
                self.err(where, "data has %d bytes, shape %s x %s needs %d" % (len(b), shape, dt, want))
        elif "file" in t:
            sc = self.sidecar(t["file"], where)
            if sc is None:
                return
            header, body = sc
            key = t.get("key")
            ent = header.get(key)
            if not isinstance(ent, dict):
                self.err(where, "key %r not in %s" % (key, t["file"]))
                return
            if ent.get("dtype") != ST_CODE[dt] or ent.get("shape") != shape:
                self.err(where, "safetensors header %s%s disagrees with %s%s" %
                         (ent.get("dtype"), ent.get("shape"), dt, shape))
            b, e = ent.get("data_offsets", [0, -1])
            if e - b != want or e > len(body) or b < 0:
                self.err(where, "safetensors range %s has %d bytes, needs %d" % ([b, e], e - b, want))

    def arg(self, a, defined, where):
        if isinstance(a, list):
            for x in a:
                self.arg(x, defined, where)
        elif isinstance(a, dict):
            if len(a) == 1 and next(iter(a)) in ARG_TAGS:
                k, v = next(iter(a.items()))
                if k == "node":
                    if v not in defined:
                        self.err(where, "names node %r not defined earlier" % v)
                elif k in ("list", "slice"):
                    if not isinstance(v, list) or (k == "slice" and len(v) != 3):
                        self.err(where, "bad %s %r" % (k, v))
                    else:
                        for x in v:
                            self.arg(x, defined, where)
                elif k == "float":
                    if v not in ("inf", "-inf", "nan"):
                        self.err(where, "bad float %r" % v)
            else:
                self.err(where, "unknown ARG object %r" % (a,))

    def graph(self, g, gi, top):
        gname = g.get("name", "#%d" % gi)
        gw = "graph %s" % gname
        nodes = g.get("nodes")
        if not isinstance(nodes, list) or not nodes:
            self.err(gw, "no nodes")
            return
        gt = g.get("tensors", {})
        for k, t in gt.items():
            self.tensor(t, "%s tensors[%s]" % (gw, k))
        defined = set()
        outputs = [i for i, n in enumerate(nodes) if n.get("op") == "output"]
        if len(outputs) != 1:
            self.err(gw, "%d output nodes" % len(outputs))
        elif outputs[0] != len(nodes) - 1:
            self.err(gw, "output node is not last")
        for n in nodes:
            name = n.get("name")
            w = "%s node %s" % (gw, name)
            if not isinstance(name, str) or not name:
                self.err(w, "missing name")
            if name in defined:
                self.err(w, "name used twice")
            op = n.get("op")
            if op not in OPS:
                self.err(w, "unknown op %r" % op)
            if not isinstance(n.get("target"), str):
                self.err(w, "target is not a string")
            self.arg(n.get("args", []), defined, w + " args")
            if not isinstance(n.get("args", []), list):
                self.err(w, "args is not an array")
            kw = n.get("kwargs", {})
            if not isinstance(kw, dict):
                self.err(w, "kwargs is not an object")
            else:
                for k, v in kw.items():
                    self.arg(v, defined, "%s kwargs.%s" % (w, k))
            meta = n.get("meta", {})
            if op == "placeholder":
                tgt = n.get("target")
                if tgt not in gt and tgt not in top and "value" not in meta:
                    self.err(w, "placeholder %r has no tensor and no meta.value" % tgt)
            elif op == "get_attr":
                tgt = n.get("target")
                if tgt not in gt and tgt not in top:
                    self.err(w, "get_attr %r has no tensor" % tgt)
            elif op == "call_module":
                m = n.get("module")
                if not isinstance(m, dict) or not isinstance(m.get("type"), str):
                    self.err(w, "call_module without module.type")
                else:
                    for local, q in (m.get("params") or {}).items():
                        if q not in gt and q not in top:
                            self.err(w, "module param %s -> %r has no tensor" % (local, q))
                    if "training" in m and not isinstance(m["training"], bool):
                        self.err(w, "module.training is not a bool")
            elif op == "output":
                if len(n.get("args", [])) != 1:
                    self.err(w, "output takes exactly one arg")
                elif "output_keys" in g:
                    # the exporter's flattened dict outputs: one key string per output
                    ks, a = g["output_keys"], n["args"][0]
                    count = len(a) if isinstance(a, list) else 1
                    if not isinstance(ks, list) or not all(isinstance(k, str) for k in ks) or \
                            len(ks) != count:
                        self.err(gw, "output_keys must be one string per output (%d)" % count)
            for fr in meta.get("stack", []):
                if not all(k in fr for k in ("file", "line", "func", "code")):
                    self.err(w, "stack frame %r incomplete" % (fr,))
            if "shape" in meta and "dtype" in meta and meta["dtype"] not in DTYPE_SIZE:
                pass  # meta dtypes may be any torch dtype name
            defined.add(name)
        exp = g.get("expected")
        if exp is not None:
            outs = exp.get("outputs", [])
            for i, t in enumerate(outs):
                self.tensor(t, "%s expected.outputs[%d]" % (gw, i))
            go = exp.get("grad_outputs")
            if go is not None and go != "ones":
                if not isinstance(go, list) or len(go) != len(outs):
                    self.err(gw, "expected.grad_outputs must be 'ones' or one tensor per output")
                else:
                    for i, t in enumerate(go):
                        self.tensor(t, "%s expected.grad_outputs[%d]" % (gw, i))
            for k, t in (exp.get("grads") or {}).items():
                self.tensor(t, "%s expected.grads[%s]" % (gw, k))
                if k not in gt and k not in top:
                    self.err(gw, "expected.grads[%s] names no tensor" % k)
            for k, t in (exp.get("buffers") or {}).items():
                self.tensor(t, "%s expected.buffers[%s]" % (gw, k))
                if k not in gt and k not in top:
                    self.err(gw, "expected.buffers[%s] names no tensor" % k)
            names = {n.get("name") for n in nodes if n.get("op") not in ("placeholder", "get_attr", "output")}
            for k, t in (exp.get("random") or {}).items():
                self.tensor(t, "%s expected.random[%s]" % (gw, k))
                if k not in names:
                    self.err(gw, "expected.random[%s] names no call node" % k)
        brk = g.get("break")
        if brk is not None and not isinstance(brk.get("reason"), str):
            self.err(gw, "break.reason is not a string")

    def run(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                tr = json.load(f, parse_constant=_reject_constant)
        except Exception as ex:
            self.err("file", "not valid JSON: %s" % ex)
            return self.errors
        if tr.get("format") != "gcdbg.trace":
            self.err("format", "want 'gcdbg.trace', found %r" % tr.get("format"))
        if tr.get("version") != 1 or isinstance(tr.get("version"), bool):
            self.err("version", "want 1, found %r" % tr.get("version"))
        top = tr.get("tensors", {})
        for k, t in top.items():
            self.tensor(t, "tensors[%s]" % k)
        graphs = tr.get("graphs")
        if not isinstance(graphs, list) or not graphs:
            self.err("graphs", "needs at least one graph")
            return self.errors
        names = set()
        for gi, g in enumerate(graphs):
            if g.get("name") in names:
                self.err("graph %s" % g.get("name"), "graph name used twice")
            names.add(g.get("name"))
            self.graph(g, gi, top)
        return self.errors


def summary(path):
    with open(path, encoding="utf-8") as f:
        tr = json.load(f)
    return "%s: ok (%s; %s)" % (path, tr.get("name"), ", ".join(
        "%s %d nodes" % (g.get("name"), len(g.get("nodes", []))) for g in tr["graphs"]))


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    bad = 0
    for p in argv:
        errs = Checker(p).run()
        if errs:
            bad += 1
            for e in errs:
                print(e, file=sys.stderr)
        else:
            print(summary(p))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
