"""Modules gcdbg_export.py refuses before torch.fx traces them, with what to change.

* Module hooks (forward pre-hooks, forward hooks, backward hooks, and the global ones): torch.fx
  calls a module's forward without its hooks, so what a hook does is missing from the trace.
  nn.utils.weight_norm and nn.utils.spectral_norm are forward pre-hooks that compute `.weight`
  (g * v / ||v||, w / sigma with a power-iteration step on the u/v buffers in training) before each
  call: exported silently, the trace held a Linear/Conv whose weight gcdbg could not find ("aten.linear:
  argument weight: expected a tensor, got None"). weight_norm or spectral_norm on a Linear/Conv, its
  only hook, is traced instead (traced_weight_norm); every other hook is refused.
* What gcdbg refuses for a module at run time and the exporter already knows (stages/modules_rnn.go:
  nn.LSTM/GRU/RNN(num_layers>1, dropout>0) in training draws masks the trace cannot record; nn.LSTM
  with proj_size): said at export, with the same text, read from module_refusals.json, which the
  gcdbg binary embeds too (exporter/embed.go) — the one home of those messages.
"""

import json
import os

import torch

_REFUSALS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "module_refusals.json")


def refusal_text(key, **values):
    """The message module_refusals.json holds under key, its {name} placeholders filled."""
    with open(_REFUSALS_FILE, encoding="utf-8") as f:
        text = json.load(f)[key]
    for k, v in values.items():
        text = text.replace("{%s}" % k, v)
    return text


def _hook_name(h):
    f = getattr(h, "__func__", h)
    name = getattr(f, "__qualname__", None) or type(h).__name__
    mod = getattr(f, "__module__", None) or type(h).__module__
    return "%s.%s" % (mod, name) if mod and mod != "builtins" else name


def _hook_advice(h):
    kind = type(h).__name__
    if kind == "WeightNorm":
        return ("nn.utils.weight_norm: torch.nn.utils.remove_weight_norm(module) before export folds "
                "g * v / ||v|| into .weight (the same forward values, but the gradient then goes to "
                "weight, not to %s_g and %s_v), or keep g and v as parameters and compute the weight "
                "in forward: w = g * v / v.norm(dim=<every dim but %d>, keepdim=True), then "
                "F.linear / F.conv2d with it" % (h.name, h.name, h.dim))
    if kind == "SpectralNorm":
        return ("nn.utils.spectral_norm: torch.nn.utils.remove_spectral_norm(module) before export "
                "(the normalized weight as it stands; in training the power-iteration step that "
                "updates %s_u/%s_v is then gone), or write the normalization in forward (sigma from "
                "the u, v buffers, updated in place under torch.no_grad(), and W / sigma)"
                % (h.name, h.name))
    return "remove the hook before export (the handle's .remove()), or do its work in forward"


_WEIGHT_NORM_MODULES = (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)


def weight_norm_hook(m):
    """m's nn.utils.weight_norm or spectral_norm pre-hook (WeightNorm / SpectralNorm of .weight), when it is m's only hook and m
    a Linear or Conv1d/2d/3d, whose call the tracer then writes out (traced_weight_norm); else
    None."""
    if not isinstance(m, _WEIGHT_NORM_MODULES) or m._forward_hooks or m._backward_hooks or \
            len(m._forward_pre_hooks) != 1:
        return None
    h = next(iter(m._forward_pre_hooks.values()))
    if type(h).__name__ not in ("WeightNorm", "SpectralNorm") or h.name != "weight":
        return None
    return h


def traced_weight_norm(tracer, m, args, kwargs):
    """For a module with weight_norm (weight_norm_hook), what its call computes as graph nodes:
    weight = v * (g / ||v||) as torch._weight_norm does (the 2-norm over every dim but the hook's,
    over all of v for dim=None), then F.linear or the Conv's own _conv_forward with that weight.
    weight_g and weight_v are get_attr nodes, so gcdbg differentiates with respect to them, as
    PyTorch does. Returns None for any other module."""
    h = weight_norm_hook(m)
    if h is None:
        return None
    path = tracer.path_of_module(m)
    x = args[0] if args else kwargs["input"]
    if type(h).__name__ == "SpectralNorm":
        # torch/nn/utils/spectral_norm.py's own computation, traced: the power iteration (in
        # training) runs under torch.no_grad() and writes weight_u/weight_v through out=, which
        # gcdbg_gradmode detaches as it does any no-grad block; then weight_orig / sigma
        w = h.compute_weight(m, do_power_iteration=m.training)
        b = tracer.create_proxy("get_attr", path + ".bias", (), {}) if m._parameters.get("bias") is not None else None
        if isinstance(m, torch.nn.Linear):
            return torch.nn.functional.linear(x, w, b)
        return m._conv_forward(x, w, b)
    g = tracer.create_proxy("get_attr", path + ".weight_g", (), {})
    v = tracer.create_proxy("get_attr", path + ".weight_v", (), {})
    nd = m._parameters["weight_v"].dim()  # not m.weight_v: fx hands out a proxy while tracing
    dims = list(range(nd)) if h.dim == -1 else [d for d in range(nd) if d != h.dim % nd]
    w = v * (g / v.pow(2).sum(dims, keepdim=True).sqrt())
    b = tracer.create_proxy("get_attr", path + ".bias", (), {}) if m._parameters.get("bias") is not None else None
    if isinstance(m, torch.nn.Linear):
        return torch.nn.functional.linear(x, w, b)
    return m._conv_forward(x, w, b)


def hook_refusal(roots):
    """A message for the first module (in roots: {prefix: module}) that has a hook torch.fx would
    drop, or None."""
    from torch.nn.modules import module as _m
    for attr, what in (("_global_forward_pre_hooks", "a global forward pre-hook"),
                       ("_global_forward_hooks", "a global forward hook"),
                       ("_global_backward_hooks", "a global backward hook")):
        hooks = getattr(_m, attr, None)
        if hooks:
            h = next(iter(hooks.values()))
            return ("gcdbg exporter: %s (%s, torch.nn.modules.module.register_module_forward_*"
                    "hook) is installed: torch.fx does not run module hooks, so the trace would "
                    "lack what it does\n  what to change: remove it while exporting"
                    % (what, _hook_name(h)))
    for prefix, root in roots.items():
        for name, m in root.named_modules(prefix=prefix):
            for attr, what in (("_forward_pre_hooks", "a forward pre-hook"),
                               ("_forward_hooks", "a forward hook"),
                               ("_backward_hooks", "a backward hook")):
                hooks = getattr(m, attr, None)
                if not hooks or weight_norm_hook(m) is not None:  # traced: traced_weight_norm
                    continue
                h = next(iter(hooks.values()))
                return ("gcdbg exporter: module %r (%s.%s) has %s, %s, which torch.fx does not run "
                        "(it calls forward without the module's hooks), so the trace would lack "
                        "what it does%s\n  what to change: %s"
                        % (name or type(root).__name__, type(m).__module__, type(m).__name__, what,
                           _hook_name(h),
                           " (it computes .weight before each call)"
                           if type(h).__name__ in ("WeightNorm", "SpectralNorm") else "",
                           _hook_advice(h)))
    return None


def module_refusal(roots):
    """A message for the first module in roots that gcdbg would refuse at run time for a reason
    the exporter knows now (module_refusals.json), or None."""
    for prefix, root in roots.items():
        for name, m in root.named_modules(prefix=prefix):
            if not isinstance(m, torch.nn.RNNBase):
                continue
            kind = type(m).__name__
            where = "gcdbg exporter: module %r: " % (name or type(root).__name__)
            if getattr(m, "proj_size", 0):
                return where + refusal_text("lstm_proj_size", proj_size=str(m.proj_size))
            if m.training and m.num_layers > 1 and m.dropout > 0:
                return where + refusal_text("rnn_dropout", kind=kind, dropout="%g" % m.dropout)
    return None


def refusal(model_or_fn, reached=None):
    """The first refusal for model_or_fn (a module) or the modules a function reaches (reached:
    {name: module}), or None."""
    roots = {"": model_or_fn} if isinstance(model_or_fn, torch.nn.Module) else dict(reached or {})
    return hook_refusal(roots) or module_refusal(roots)
