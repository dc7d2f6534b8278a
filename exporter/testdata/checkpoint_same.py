"""Checks that checkpoint_blocks.py's gradients with PyTorch's real checkpointing (loss.backward(),
the recomputation in the backward, dropout's RNG replayed) equal those of the blocks called
directly, bit for bit, for VARIANT (the exporter runs checkpoints as plain calls). Exit 1 if not."""
import importlib.util
import os
import sys

import torch
import torch.utils.checkpoint as ckpt

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("m", os.path.join(here, "checkpoint_blocks.py"))
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)


def grads(direct):
    torch.manual_seed(0)
    m, (x, y) = mod.make()
    m.train()
    saved = mod.checkpoint
    if direct:
        mod.checkpoint = lambda f, *a, **k: f(*a)
    try:
        torch.manual_seed(1)
        m(x, y).backward()
    finally:
        mod.checkpoint = saved
    return {n: (None if p.grad is None else p.grad.clone()) for n, p in m.named_parameters()}


a, b = grads(False), grads(True)
bad = [n for n in a if (a[n] is None) != (b[n] is None) or (a[n] is not None and not torch.equal(a[n], b[n]))]
if mod.VARIANT == "nograd_input":
    # PyTorch's reentrant checkpoint: no gradient for the blocks' parameters; a direct call
    # gives them one, which the exporter's pass-through keeps out with a no_grad block
    bad = [n for n in bad if not (n.startswith("blocks.") and a[n] is None)]
    if not any(n.startswith("blocks.") and a[n] is None for n in a):
        print("premise: reentrant checkpoint with no input requiring grad gives no block gradient")
        sys.exit(1)
if bad:
    print("gradients differ:", bad)
    sys.exit(1)
print("same")
