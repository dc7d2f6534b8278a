#!/usr/bin/env python3
"""Export PyTorch's OpInfo samples as gcdbg traces (docs/conformance.md).

For every OpInfo of torch.testing._internal.common_methods_invocations.op_db whose op is in the
PyTorch 2.6 core ATen opset (../shared/design/core-aten-2.6.txt, copied to conformance/core-aten.txt)
or in torch.nn.functional, every dtype the op supports on the CPU that the trace format has, and
every sample the OpInfo generates for it (gradients wherever the op supports autograd and the
dtype is floating), this writes one trace `f(t0, t1, ...) = op(sample)`: the sample's tensors are
the placeholders, everything else is a constant of the graph. The in-place and out= variants of
each sample are OpInfos of their own, OPINFO.inplace and OPINFO.out (see VARIANTS below); --ops OPINFO
selects all three, --ops OPINFO.inplace just the one.

    /usr/bin/python3 conformance/export_opinfo.py -o DIR [--dtypes float32,int64] [--ops relu,cos]
                                                  [--ids FILE] [--shard K/N]

writes DIR/<sample file>.json (+ .safetensors sidecars), DIR/selection.txt (every selected OpInfo),
DIR/covered.tsv (the OpInfo x dtype pairs exported in full) and DIR/manifest.jsonl (covered-K-of-N.tsv,
manifest-K-of-N.jsonl for a shard, so shards can run side by side into one DIR), one JSON object
per line: {"id", "opinfo", "dtype", "index", "desc", "trace": file} or {..., "refused": reason}.
A sample id is OPINFO/DTYPE/INDEX, e.g. "nn.functional.relu/float32/3" (OPINFO is the OpInfo's
name, with ".variant" when it has a variant_test_name); samples are generated under a fixed seed
per (OpInfo, dtype), so an id names the same shapes and values on every run.

Works with PyTorch 1.13 (Debian; needs the expecttest stand-in beside this file) and 2.x.
"""

import argparse
import json
import os
import re
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "exporter"))
try:
    import expecttest  # noqa: F401  (the real package, where installed)
except ImportError:
    sys.path.append(HERE)  # conformance/expecttest.py, the stand-in

import torch  # noqa: E402

# common_utils parses sys.argv when imported: hide ours from it.
_argv, sys.argv = sys.argv, sys.argv[:1]
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402
import torch.testing._internal.common_methods_invocations as _cmi  # noqa: E402
sys.argv = _argv


def _draw_from_current_state(op, *args, **kwargs):
    return op(*args, **kwargs)


# The random OpInfos (dropout, rrelu, ...) call their op through wrapper_set_seed, which reseeds the
# generator (manual_seed(42)) inside the call so that PyTorch's own tests draw alike in every variant.
# That reseed runs while torch.fx traces the sample, so it is not a node of the graph: the exporter's
# second run of the graph, which records each draw (expected.random), would start from another RNG
# state than the reference run and record other numbers. The exporter records every draw it can and
# the samples are made under a fixed seed per (OpInfo, dtype), so the ops draw from the current state.
_cmi.wrapper_set_seed = _draw_from_current_state

from gcdbg_export import export, traced_factory  # noqa: E402

# The dtypes a trace TENSOR can hold (shared/spec/trace-format.md), in table order.
DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
    "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
}


def core_aten_names(path):
    names = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                names.add(line.split(":")[0].strip())
    return names


# ops outside the core ATen opset that gcdbg computes, whose OpInfos are selected too: torch factories
# the exporter records as graph nodes (not frozen constants; ir/ops_linspace.go), and index_add,
# index_fill, index_copy (ir/ops_index_add.go, ir/ops_index_fill_copy.go; PyTorch 2.6 decomposes
# them before the core set)
EXTRA_OPINFOS = ("linspace", "logspace", "eye", "index_add", "index_fill", "index_copy")


def selected_opinfos(core):
    out = []
    for o in op_db:
        if o.name.startswith("nn.functional.") or o.name in core or o.aten_name in core or o.name in EXTRA_OPINFOS:
            out.append(o)
    return out


def opinfo_id(o):
    return o.name + ("." + o.variant_test_name if o.variant_test_name else "")


def file_name(sample_id):
    return re.sub(r"[^A-Za-z0-9._-]", "_", sample_id.replace("/", "__")) + ".json"


def _is_tensor(x):
    return isinstance(x, torch.Tensor)


def _flatten_tensors(x, out):
    """Replace every tensor in x (nested lists/tuples/dicts) by a slot; returns the template."""
    if _is_tensor(x):
        out.append(x)
        return _Slot(len(out) - 1)
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_flatten_tensors(v, out) for v in x)
    if isinstance(x, dict):
        return {k: _flatten_tensors(v, out) for k, v in x.items()}
    return x


class _Slot:
    def __init__(self, i):
        self.i = i


def _fill(t, ts):
    if isinstance(t, _Slot):
        return ts[t.i]
    if isinstance(t, (list, tuple)):
        return type(t)(_fill(v, ts) for v in t)
    if isinstance(t, dict):
        return {k: _fill(v, ts) for k, v in t.items()}
    return t


def sample_function(op, sample, detach=False):
    """(f, tensors): f(t0, t1, ...) calls op on the sample with its tensors replaced by the
    arguments, as a function with one named parameter per tensor (torch.fx placeholders);
    detach: the tensors without requires_grad (no gradients exported)."""
    tensors = []
    parts = (sample.input, tuple(sample.args), dict(sample.kwargs))
    if detach:
        parts = _detach_all(parts)
    tmpl = _flatten_tensors(parts, tensors)
    names = ["t%d" % i for i in range(len(tensors))]
    # the OpInfo holds torch.arange itself: called through torch.arange, the exporter's tracer
    # makes it a graph node instead of a constant fx computed while tracing (a factory of Python
    # numbers has no tensor argument to trace through)
    op = traced_factory(op)

    def call(*ts):
        inp, args, kwargs = _fill(tmpl, ts)
        return op(inp, *args, **kwargs)

    src = "def sample(%s):\n    return _call(%s)\n" % (", ".join(names), ", ".join(names))
    scope = {"_call": call}
    exec(src, scope)  # a real signature: torch.fx makes one placeholder per parameter
    return scope["sample"], tensors


def describe(sample):
    def d(x):
        if _is_tensor(x):
            s = "%s%s" % (str(x.dtype).replace("torch.", ""), list(x.shape))
            if x.numel() > 1 and not x.is_contiguous():
                s += " non-contiguous"
            return s
        if isinstance(x, (list, tuple)):
            return "[" + ", ".join(d(v) for v in x) + "]"
        return repr(x)
    parts = [d(sample.input)] + [d(a) for a in sample.args]
    parts += ["%s=%s" % (k, d(v)) for k, v in sample.kwargs.items()]
    text = ", ".join(parts)
    return text if len(text) <= 160 else text[:157] + "..."


def short(e):
    msg = str(e).strip().splitlines()
    msg = msg[0] if msg else type(e).__name__
    return "%s: %s" % (type(e).__name__, msg[:300])


# OpInfos whose result is uninitialized memory: PyTorch's own tests do not compare their values.
UNSPECIFIED_VALUES = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided",
                      "empty_permuted"}


# The in-place (OPINFO.inplace) and out= (OPINFO.out) variants of an OpInfo's samples, as user code
# inside a compiled function hits them; gcdbg's functional stage rewrites the mutation.
#   in-place: on a fresh clone, `x = t0.clone(); x.abs_(...); return x` (keeps gradients legal)
#             where the dtype takes gradients, else on the input itself, which is then returned
#             (a mutated graph input);
#   out=:     `torch.abs(t0, ..., out=tN); return tN`, the out buffer an input that gets mutated (out=
#             takes no gradients, so neither does the sample).
# A sample PyTorch itself rejects in that variant (an in-place op whose result would broadcast the
# input or change its dtype, an out= the op cannot take) is not exported: PyTorch's test_ops skips
# those too.
VARIANTS = ("inplace", "out")


def has_variant(o, kind):
    return o.inplace_variant is not None if kind == "inplace" else bool(o.supports_out)


class Rejected(Exception):
    """PyTorch rejects the sample in this variant."""


def _detach_all(x):
    if _is_tensor(x):
        return x.detach().clone()
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_detach_all(v) for v in x)
    if isinstance(x, dict):
        return {k: _detach_all(v) for k, v in x.items()}
    return x


def variant_function(o, kind, sample, grad):
    """(f, tensors) for the in-place or out= variant of sample, or Rejected."""
    inp, args, kwargs = sample.input, tuple(sample.args), dict(sample.kwargs)
    if not _is_tensor(inp):
        raise Rejected("the sample's input is not one tensor")
    if kind == "inplace" and grad:
        try:  # PyTorch's autograd may lack the in-place op's derivative (atanh_ in 1.13): no grads then
            x = inp.clone()
            o.inplace_variant(x, *args, **kwargs)
            if x.requires_grad:
                x.sum().backward()
        except Exception:
            grad = False
    if kind == "out" or not grad:
        inp, args, kwargs = _detach_all((inp, args, kwargs))
    try:  # what PyTorch does with this sample in this variant
        if kind == "inplace":
            x = inp.clone() if grad else inp.detach().clone()
            o.inplace_variant(x, *args, **kwargs)
        else:
            ref = o.op(inp, *args, **kwargs)
            if _is_tensor(ref):
                outs = torch.empty_like(ref)
            elif isinstance(ref, (tuple, list)) and ref and all(_is_tensor(r) for r in ref):
                outs = tuple(torch.empty_like(r) for r in ref)
            else:
                raise Rejected("the op's result is not a tensor or a tuple of tensors")
            o.op(inp, *args, out=outs, **kwargs)
    except Rejected:
        raise
    except Exception as e:
        raise Rejected(short(e))
    tensors = []
    tmpl = _flatten_tensors((inp, args, kwargs), tensors)
    names = ["t%d" % i for i in range(len(tensors))]
    if kind == "inplace":
        def call(*ts):
            x, a, kw = _fill(tmpl, ts)
            if grad:
                x = x.clone()
            v = o.inplace_variant
            if getattr(torch.Tensor, getattr(v, "__name__", ""), None) is v:
                getattr(x, v.__name__)(*a, **kw)  # x.abs_(...): torch.fx records the method call
            else:
                v(x, *a, **kw)
            return x
        src = "def sample(%s):\n    return _call(%s)\n" % (", ".join(names), ", ".join(names))
    else:
        # the out buffers: inputs of the function, filled with values the op must overwrite
        torch.manual_seed(1)
        bufs = outs if isinstance(outs, tuple) else (outs,)
        for b in bufs:
            if b.dtype == torch.bool:
                b.copy_(torch.randint(0, 2, b.shape, dtype=torch.bool))
            elif b.is_floating_point() or b.is_complex():
                b.copy_(torch.randn(b.shape, dtype=b.dtype) * 7)
            else:
                b.copy_(torch.randint(-7, 8, b.shape).to(b.dtype) if b.dtype != torch.uint8
                        else torch.randint(0, 8, b.shape, dtype=torch.uint8))
        nb = len(bufs)
        onames = ["t%d" % (len(tensors) + i) for i in range(nb)]
        tensors += list(bufs)
        single = not isinstance(outs, tuple)

        def call(*ts):
            x, a, kw = _fill(tmpl, ts[:len(ts) - nb])
            out = ts[-1] if single else tuple(ts[len(ts) - nb:])
            o.op(x, *a, out=out, **kw)
            return out
        src = "def sample(%s):\n    return _call(%s)\n" % (", ".join(names + onames), ", ".join(names + onames))
    scope = {"_call": call}
    exec(src, scope)
    return scope["sample"], tensors


def _folded(path):
    """Why a trace tests nothing of gcdbg, or "": torch.fx runs a call none of whose arguments is a
    tensor (a factory: arange, empty with Python sizes) while tracing and keeps its result as a
    constant, so the graph holds no op, only that constant as the output."""
    with open(path, encoding="utf-8") as f:
        t = json.load(f)
    ops = [n for g in t["graphs"] for n in g["nodes"] if n["op"] in ("call_function", "call_method", "call_module")]
    if ops:
        return ""
    return ("export: the trace holds no op: torch.fx ran the call while tracing (no tensor argument: a factory "
            "call) and froze its result into a constant, so comparing it would test nothing of gcdbg")


def _backward_has_no_kernel(op, sample):
    """Whether PyTorch runs the sample forward but its backward raises "... not implemented for
    '<dtype>'" (no CPU kernel for that dtype)."""
    f, tensors = sample_function(op, sample)
    try:
        out = f(*tensors)
    except Exception:
        return False
    outs = [out] if _is_tensor(out) else [t for t in out if _is_tensor(t)] if isinstance(out, (list, tuple)) else []
    outs = [t for t in outs if t.requires_grad]
    if not outs:
        return False
    try:
        torch.autograd.backward([t.sum() for t in outs])
    except RuntimeError as e:
        return "not implemented for" in str(e)
    return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", help="directory for the traces and manifest.jsonl")
    ap.add_argument("--dtypes", default=",".join(DTYPES), help="comma-separated trace dtypes")
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names (default: the selection)")
    ap.add_argument("--ids", default="", help="file of sample ids, one a line: export only those")
    ap.add_argument("--shard", default="1/1", help="K/N: only every N-th OpInfo, starting at the K-th")
    ap.add_argument("--list-opinfos", action="store_true", help="print the selected OpInfos and exit")
    args = ap.parse_args(argv)

    core = core_aten_names(os.path.join(HERE, "core-aten.txt"))
    ops = selected_opinfos(core)
    if args.list_opinfos:
        for o in ops:
            print(opinfo_id(o))
        return 0
    if not args.out:
        ap.error("-o DIR is required")
    k, n = (int(x) for x in args.shard.split("/"))
    os.makedirs(args.out, exist_ok=True)
    if k == 1:  # the whole selection, for the table's count of what the store lacks
        with open(os.path.join(args.out, "selection.txt"), "w", encoding="utf-8") as f:
            f.write("".join(opinfo_id(o) + "\n" for o in ops))
    want_ops = {s for s in args.ops.split(",") if s}
    want_ids = None
    if args.ids:
        with open(args.ids, encoding="utf-8") as f:
            want_ids = {ln.split("#")[0].strip() for ln in f} - {""}
        want_ops |= {i.split("/")[0] for i in want_ids}
    dtypes = [d for d in args.dtypes.split(",") if d]
    for d in dtypes:
        if d not in DTYPES:
            ap.error("unknown dtype %r (trace dtypes: %s)" % (d, ", ".join(DTYPES)))
    torch.set_num_threads(1)
    mname = "manifest.jsonl" if n == 1 else "manifest-%d-of-%d.jsonl" % (k, n)
    manifest = open(os.path.join(args.out, mname), "w", encoding="utf-8")
    # covered*.tsv: the OpInfo x dtype pairs exported in full (every sample), so a merge into the
    # results store drops their samples this run no longer makes; a run of chosen ids covers none
    covered = open(os.path.join(args.out, "covered" + mname[len("manifest"):-len(".jsonl")] + ".tsv"),
                   "w", encoding="utf-8")

    def emit(rec):
        manifest.write(json.dumps(rec, sort_keys=True) + "\n")
        manifest.flush()

    counts = {"exported": 0, "refused": 0, "rejected by PyTorch": 0}
    for j, o in enumerate(ops):
        oid = opinfo_id(o)
        if j % n != k - 1:
            continue
        # the functional samples (kind None) and the variants, each an OpInfo row of its own
        kinds = [kd for kd in (None,) + VARIANTS if kd is None or has_variant(o, kd)]
        if want_ops and oid not in want_ops:
            kinds = [kd for kd in kinds if kd is not None and "%s.%s" % (oid, kd) in want_ops]
        if not kinds:
            continue
        if want_ids is None:
            covered.write("%s\t\n" % oid)  # drops the variant refusals of older runs, which had no dtype
            for kd in kinds:
                vid = oid if kd is None else "%s.%s" % (oid, kd)
                covered.write("".join("%s\t%s\n" % (vid, d) for d in dtypes))
        supported = o.supported_dtypes("cpu")
        for dname in dtypes:
            dt = DTYPES[dname]
            if dt not in supported:
                continue
            grad = bool(o.supports_autograd and (dt.is_floating_point or dt.is_complex))
            torch.manual_seed(0)
            try:
                samples = list(o.sample_inputs("cpu", dt, requires_grad=grad))
            except Exception as e:  # the OpInfo itself fails to make samples here
                for kd in kinds:
                    vid = oid if kd is None else "%s.%s" % (oid, kd)
                    emit({"id": "%s/%s/*" % (vid, dname), "opinfo": vid, "dtype": dname,
                          "refused": "PyTorch's sample_inputs failed: " + short(e)})
                    counts["refused"] += 1
                continue
            for i, s in enumerate(samples):
                for kd in kinds:
                    vid = oid if kd is None else "%s.%s" % (oid, kd)
                    sid = "%s/%s/%d" % (vid, dname, i)
                    if want_ids is not None and sid not in want_ids:
                        continue
                    rec = {"id": sid, "opinfo": vid, "dtype": dname, "index": i, "desc": describe(s)}
                    if o.name in UNSPECIFIED_VALUES:
                        rec["refused"] = ("%s returns uninitialized memory: its values are unspecified, so "
                                          "there is nothing to compare (PyTorch's tests skip them too)" % o.name)
                        counts["refused"] += 1
                        emit(rec)
                        continue
                    try:
                        if kd is None:
                            f, tensors = sample_function(o.op, s)
                        else:
                            rec["desc"] = "%s: %s" % ("in-place" if kd == "inplace" else "out=", rec["desc"])
                            f, tensors = variant_function(o, kd, s, grad)
                        # random draws (dropout, rrelu, ...) are the exporter's to record
                        # (expected.random); where it cannot, it raises and the sample is refused
                        fname = file_name(sid)
                        # the trace's name names its safetensors sidecar: one per sample
                        rng = torch.random.get_rng_state()
                        try:
                            export(f, tuple(tensors), fname[:-len(".json")], os.path.join(args.out, fname),
                                   sources=[], runs=0)
                        except Exception as e:
                            # PyTorch's own backward fails in a dtype the OpInfo does not list for
                            # gradients (pow float16: "log_vml_cpu" not implemented for 'Half'): test_ops
                            # checks gradients only in supported_backward_dtypes, so the sample is
                            # exported without them, as the in-place variant already is. The same where
                            # PyTorch 1.13's CPU backward has no kernel for a dtype the OpInfo lists
                            # (smooth_l1_loss float16: "smooth_l1_backward_cpu_out" not implemented for
                            # 'Half'): there is no PyTorch gradient to compare with; the forward is kept
                            if not grad or kd is not None:
                                raise
                            if dt not in o.supported_backward_dtypes("cpu"):
                                why = "not a backward dtype of the OpInfo"
                            elif _backward_has_no_kernel(o.op, s):
                                why = "PyTorch's CPU backward has no kernel for this dtype: " + short(e)
                            else:
                                raise
                            torch.random.set_rng_state(rng)
                            f, tensors = sample_function(o.op, s, detach=True)
                            export(f, tuple(tensors), fname[:-len(".json")], os.path.join(args.out, fname),
                                   sources=[], runs=0)
                            rec["desc"] = "no grad (%s): %s" % (why, rec["desc"])
                        folded = _folded(os.path.join(args.out, fname))
                        if folded:
                            rec["refused"] = folded
                        else:
                            rec["trace"] = fname
                    except Rejected:  # not a sample of this variant: PyTorch raises on it
                        counts["rejected by PyTorch"] += 1
                        continue
                    except Exception as e:
                        rec["refused"] = "export: " + short(e)
                        if os.environ.get("GCDBG_CONFORMANCE_DEBUG"):
                            traceback.print_exc()
                    counts["refused" if "refused" in rec else "exported"] += 1
                    emit(rec)
    manifest.close()
    covered.close()
    print("exported %d samples, refused %d, %d variant samples PyTorch rejects left out (torch %s) into %s"
          % (counts["exported"], counts["refused"], counts["rejected by PyTorch"], torch.__version__, args.out),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
