"""F.gelu followed by an einsum that permutes: PyTorch 1.13's CPU GELU backward is wrong when the
incoming gradient is non-contiguous (stride (128, 32768, 1) from einsum's backward). gcdbg computes
the right gradient and reports MISMATCH against PyTorch's wrong recorded one.
Check PyTorch alone: /usr/bin/python3 examples/unseen2/repro/gelu_einsum_bwd.py"""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w2 = nn.Parameter(torch.randn(4, 128, 64) * 0.05)

    def forward(self, pre):
        return torch.einsum("neh,ehd->ned", F.gelu(pre), self.w2).pow(2).sum()


def make():
    return M(), (torch.randn(256, 4, 128, requires_grad=True),)


if __name__ == "__main__":
    torch.manual_seed(0)
    m, (x,) = make()
    for dt in (torch.float32, torch.float64):
        p = x.detach().to(dt).requires_grad_()
        m.to(dt)(p).backward()
        print(dt, "grad of pre: sum", p.grad.sum().item(), "absmax", p.grad.abs().max().item())
    pre = torch.randn(256, 4, 128, requires_grad=True)
    g = torch.randn(4, 256, 128).permute(1, 0, 2)
    gi, = torch.autograd.grad(F.gelu(pre), pre, g)
    gc, = torch.autograd.grad(F.gelu(pre), pre, g.contiguous())
    print("gelu backward, permuted vs contiguous grad_output: max diff", (gi - gc).abs().max().item())
