#!/usr/bin/env python3
"""Is `gcdbg run`'s MISMATCH on style_transfer.py --seed 2 (res.4.conv1.conv2d.weight and
res.4.in1.bias, worst elements in channel 97) a ReLU decided the other way? Rebuilds the model in
float64 (torch.manual_seed(SEED) then make(), as the exporter), finds the pre-activations of
transformer.res.4's ReLU nearest 0, flips each alone and prints in1.bias[97]'s gradient: F
(unflipped) is the trace's float64 reference (-0.36098 at seed 2), the compiled value -0.39793.
Usage: style_flip_check.py [SEED] [CHANNEL] [K]"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import style_transfer as st  # noqa: E402

SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 2
CH = int(sys.argv[2]) if len(sys.argv) > 2 else 97
K = int(sys.argv[3]) if len(sys.argv) > 3 else 6
torch.manual_seed(SEED)
model, (x, style) = st.make()
model = model.double()
x, style = x.double(), style.double()


class FlipReLU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.flip = None
        self.pre = None

    def forward(self, t):
        self.pre = t.detach().clone()
        keep = t > 0
        if self.flip is not None:
            keep = keep.clone()
            keep.view(-1)[self.flip] = ~keep.view(-1)[self.flip]
        return t * keep.to(t.dtype)


blk = model.transformer.res[4]
blk.relu = FlipReLU()


def grad_at(flip):
    model.zero_grad()
    blk.relu.flip = flip
    model(x, style).backward()
    return blk.in1.bias.grad[CH].item(), blk.conv1.conv2d.weight.grad[CH].clone()


g0, w0 = grad_at(None)
pre = blk.relu.pre
print("F: in1.bias[%d] grad %.6f" % (CH, g0))
ch = pre[:, CH].abs()
flat = ch.reshape(-1)
order = flat.argsort()[:K]
for j in order.tolist():
    n, rem = divmod(j, ch.shape[1] * ch.shape[2])
    h, w = divmod(rem, ch.shape[2])
    idx = ((n * pre.shape[1] + CH) * pre.shape[2] + h) * pre.shape[3] + w
    g, wg = grad_at(idx)
    print("flip [%d,%d,%d,%d] pre %.3e: in1.bias[%d] grad %.6f (delta %.4f), conv1.weight[%d] max |delta| %.4f"
          % (n, CH, h, w, pre.view(-1)[idx].item(), CH, g, g - g0, CH, (wg - w0).abs().max().item()))
allrel = pre.abs().reshape(-1).sort().values[:5]
print("smallest |pre| in all of res.4's ReLU:", allrel.tolist())
