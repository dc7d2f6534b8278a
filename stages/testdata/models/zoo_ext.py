"""The op families of issue 15 in one small training-mode network: every
activation and loss module gcdbg added, and the functions and Tensor methods
real models call (scans, norms, einsum, lerp, ...). Exported with --train so
gradients are checked against PyTorch too."""
import torch
import torch.nn.functional as F
from torch import nn

NAME = "zoo_ext"
TRAIN = True


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.acts = nn.ModuleList([
            nn.ReLU6(), nn.Hardswish(), nn.Hardsigmoid(), nn.Mish(), nn.ELU(alpha=0.7), nn.SELU(),
            nn.CELU(alpha=1.3), nn.Softplus(beta=2.0, threshold=5.0), nn.LeakyReLU(0.1), nn.Hardtanh(-0.5, 0.5),
            nn.LogSigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Hardshrink(0.3), nn.Softshrink(0.2),
        ])
        self.prelu = nn.PReLU(8, init=0.2)
        self.glu = nn.GLU(dim=-1)
        self.mse = nn.MSELoss()
        self.l1 = nn.L1Loss(reduction="sum")
        self.sl1 = nn.SmoothL1Loss(beta=0.5)
        self.huber = nn.HuberLoss(delta=0.8)
        self.bce = nn.BCELoss()
        self.bcel = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.5, 0.5, 1.0, 2.0]))
        self.kl = nn.KLDivLoss(reduction="batchmean")
        self.ce = nn.CrossEntropyLoss(label_smoothing=0.1)
        self.nll = nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0]), ignore_index=1)
        self.mha = nn.MultiheadAttention(4, 2)
        self.mhab = nn.MultiheadAttention(4, 1, batch_first=True)

    def forward(self, x, t, p, cls):
        h = self.fc(x)
        acts = sum(a(h) for a in self.acts)
        h = self.prelu(acts)
        g = self.glu(h)                                  # [4, 4]
        c = torch.cumsum(g, 1) + torch.cumprod(g * 0.5, 0) + torch.logcumsumexp(g, -1)
        c = c + torch.flip(g, [0]) + torch.roll(g, 1, 1) + torch.lerp(g, c, 0.3)
        n = g.norm(dim=1, keepdim=True) + torch.logsumexp(g, 1, keepdim=True) + torch.linalg.vector_norm(g, 1, 0)
        v, m = torch.var_mean(c, 1, keepdim=True)
        e = torch.einsum("ij,jk->ik", c, g.t()) + torch.addcmul(n, v, m, value=0.5)
        e = e + torch.hypot(c, g).sum() + torch.asinh(c).mean() + torch.atan(g) * torch.sinh(g * 0.1)
        e = F.softsign(e * 0.05) * 3
        s3 = e.unsqueeze(1)                              # [L=4, N=1, E=4]
        att, w = self.mha(s3, s3, s3, attn_mask=torch.ones(4, 4, dtype=torch.bool).triu(1))
        attb, _ = self.mhab(e.unsqueeze(0), e.unsqueeze(0), e.unsqueeze(0))
        e = e + att.squeeze(1) * 0.5 + w.squeeze(0) + attb.squeeze(0) * 0.25
        loss = (self.mse(e, t) + self.l1(e, t) + self.sl1(e, t) + self.huber(e, t)
                + self.bce(torch.sigmoid(e), p) + self.bcel(e, p)
                + self.kl(F.log_softmax(e, 1), F.softmax(t, 1))
                + self.ce(e, cls) + self.nll(F.log_softmax(e, 1), cls)
                + F.binary_cross_entropy_with_logits(e, p) + F.mse_loss(e, t, reduction="sum"))
        return loss, torch.argsort(e, 1)


def make():
    m = Model()
    x = torch.randn(4, 6)
    t = torch.randn(4, 4)
    p = torch.rand(4, 4)
    cls = torch.tensor([0, 3, 1, 2])
    return m, (x, t, p, cls)
