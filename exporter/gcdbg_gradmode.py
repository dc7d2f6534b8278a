"""Grad mode inside a traced forward (`with torch.no_grad():`, `torch.set_grad_enabled(False)`,
`torch.inference_mode()`, a `@torch.no_grad()` helper), for gcdbg_export.py.

torch.fx records no grad mode: the nodes a forward makes inside a `with torch.no_grad():` block
land in the graph like any other, and a consumer that differentiates the graph (gcdbg's joint
graph) would send gradients through them where PyTorch sends none (a BYOL / DQN target branch, a
distillation teacher). The block does run while fx traces (the context manager is Python code), so
the grad mode at the moment each node is made is the program's: the tracer marks the nodes made
with grad mode off (mark), and cut_no_grad then inserts `detach` nodes so that the captured graph
computes what PyTorch differentiates:

  * a value made inside a no-grad region and used outside it (by a node made with grad mode on,
    or returned) is detached where it leaves: PyTorch's value there has no grad_fn;
  * a node inside a region that writes into a tensor (an in-place method or function `add_`,
    `copy_`, `x[i] = v`, `out=`), an EMA buffer update, gets its sources detached (every tensor
    argument but the one written): what PyTorch stores there carries no gradient, the buffer's
    later reads must not either.

Placeholders and get_attr nodes are never marked: a parameter read inside the block is the same
tensor outside it (fx even shares one get_attr node for both reads)."""

import operator

import torch
import torch.fx

NO_GRAD = "gcdbg_no_grad"

# operator.* functions that write into their first argument (x += y traces as operator.iadd)
_INPLACE_OPERATORS = {getattr(operator, k) for k in (
    "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "iand", "ior",
    "ixor", "ilshift", "irshift", "setitem") if hasattr(operator, k)}


def mark(node):
    """Called by the tracer for each node it makes: records that grad mode was off."""
    if node.op in ("call_function", "call_method", "call_module") and not torch.is_grad_enabled():
        node.meta[NO_GRAD] = True


def in_region(node):
    return bool(node.meta.get(NO_GRAD))


def _writes(node):
    """The position of the argument node writes into (0, or "out" for an out= kwarg), or None."""
    if node.kwargs.get("out") is not None:
        return "out"
    if node.op == "call_method":
        name = str(node.target)
    elif node.op == "call_function":
        if node.target in _INPLACE_OPERATORS:
            return 0
        name = getattr(node.target, "__name__", "")
    else:
        return None
    if name.endswith("_") and not name.startswith("_"):
        return 0
    return None


def _is_tensor(v):
    return isinstance(v, torch.Tensor)


def cut_no_grad(gm, values, user_line=lambda n: ""):
    """Insert the detach nodes described above into gm's graph. values: node name -> the value the
    node made on the example inputs (a shape propagation run). Returns the number of detach nodes
    inserted (0 when the forward has no no-grad region); gm is recompiled when it changed.
    Raises ValueError when a value that leaves a region is not a tensor but holds tensors (a tuple
    a no-grad call returned, unpacked outside the block)."""
    graph = gm.graph
    nodes = list(graph.nodes)
    if not any(in_region(n) for n in nodes):
        return 0
    inserted = 0
    # an item of a tuple made inside a region (out, state = lstm(x) under the `with`, indexed
    # after it) is a value of the region too: the detach goes after the getitem
    for n in nodes:
        if n.op == "call_function" and n.target is operator.getitem and not in_region(n) and \
                isinstance(n.args[0], torch.fx.Node) and in_region(n.args[0]) and \
                isinstance(values.get(n.args[0].name), (tuple, list)):
            n.meta[NO_GRAD] = True
    # where a value leaves a region: one detach after its producer for every outside consumer
    for n in nodes:
        if not in_region(n):
            continue
        outside = [u for u in n.users if not in_region(u)]
        if not outside:
            continue
        v = values.get(n.name)
        if not _is_tensor(v):
            if isinstance(v, (tuple, list)) and any(_is_tensor(x) for x in v):
                raise ValueError(
                    "node %r%s returns several tensors inside a no-grad block (with torch.no_grad(): "
                    "...) and they are used together outside it (%s), which the exporter cannot "
                    "detach as one value\n  what to change: unpack them inside the block (`a, b = "
                    "f(x)` under the `with`)" % (n.name, user_line(n), ", ".join(
                        repr(u.name) for u in outside)))
            continue  # a size, a Python number: no gradient to cut
        with graph.inserting_after(n):
            d = graph.call_method("detach", (n,))
        d.meta.update({k: v for k, v in n.meta.items() if k in ("stack_trace",)})
        if getattr(n, "stack_trace", None):
            d.stack_trace = n.stack_trace
        for u in outside:
            u.replace_input_with(n, d)
        inserted += 1
    # writes inside a region: detach the sources
    for n in nodes:
        if not in_region(n):
            continue
        w = _writes(n)
        if w is None:
            continue
        dst = n.kwargs.get("out") if w == "out" else (n.args[0] if n.args else None)
        dv = values.get(dst.name) if isinstance(dst, torch.fx.Node) else None
        if _is_tensor(dv) and dv.requires_grad:
            raise ValueError(
                "node %r%s writes in place, inside a no-grad block (with torch.no_grad(): ...), into "
                "a tensor that requires grad (a parameter: an EMA of weights in forward), which "
                "gcdbg does not model (its parameters are the graph's inputs, not state the step "
                "writes)\n  what to change: update the parameter outside forward (in the training step, as an "
                "optimizer does), or keep the running copy in a buffer (register_buffer)"
                % (n.name, user_line(n)))
        cache = {}

        def cut(a):
            if not _is_tensor(values.get(a.name)):
                return a
            if a not in cache:
                with graph.inserting_before(n):
                    d = graph.call_method("detach", (a,))
                if getattr(n, "stack_trace", None):
                    d.stack_trace = n.stack_trace
                d.meta[NO_GRAD] = True
                cache[a] = d
            return cache[a]

        args = list(n.args)
        kwargs = dict(n.kwargs)
        for i, a in enumerate(args):
            if i != w:
                args[i] = torch.fx.node.map_arg(a, cut)
        for k, a in kwargs.items():
            if k != w:
                kwargs[k] = torch.fx.node.map_arg(a, cut)
        n.args, n.kwargs = tuple(args), kwargs
        inserted += len(cache)
    if inserted:
        graph.lint()
        gm.recompile()
    return inserted
