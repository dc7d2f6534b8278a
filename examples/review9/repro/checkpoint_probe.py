"""Diagnostic only: run the exporter on checkpoint_after_embed.py with torch.autograd.grad
replaced by a .backward()-based equivalent (reentrant checkpoint refuses .grad()), to see what
trace the exporter would write once its reference run gets past that refusal.
usage: /usr/bin/python3 checkpoint_probe.py OUT.json"""
import os, sys
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "exporter"))
import gcdbg_export  # noqa: E402

_orig = torch.autograd.grad


def grad_via_backward(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                      allow_unused=False, **kw):
    inputs = list(inputs)
    saved = [t.grad for t in inputs]
    for t in inputs:
        t.grad = None
    torch.autograd.backward(outputs, grad_outputs, retain_graph=retain_graph, create_graph=create_graph)
    out = tuple(t.grad for t in inputs)
    for t, g in zip(inputs, saved):
        t.grad = g
    return out


torch.autograd.grad = grad_via_backward
sys.argv = ["gcdbg_export.py", os.path.join(here, "checkpoint_after_embed.py"), "-o", sys.argv[1]]
gcdbg_export.main()
