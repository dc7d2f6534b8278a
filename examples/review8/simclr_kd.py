"""A SimCLR step with knowledge distillation, in training, written the way the common repos do
(SimCLR's NT-Xent in the masked_fill form of lightly / the PyTorch Lightning SimCLR tutorial; Hinton
KD as in the usual `loss_fn_kd`): an MLP encoder (Linear + BatchNorm1d + ReLU + Dropout, x2) on both
augmented views at once, an MLP projector (Linear, BatchNorm1d, ReLU, Linear) to 128-d,
F.normalize, the 2N x 2N cosine-similarity matrix / temperature 0.5 with its diagonal filled in
place with -inf (masked_fill_ of torch.eye(2N, dtype=torch.bool)), cross_entropy against the
positive pair's index; plus a linear student head on view 1 distilled from a frozen teacher MLP
(eval mode, under torch.no_grad) with F.kl_div(F.log_softmax(s / T), F.softmax(t / T),
reduction="batchmean") * T^2 (T = 4) and a hard-label cross_entropy.
Batch 256 (2N = 512): encoder hidden 512 x 2048 (4.2 MB), similarity 512 x 512 (1 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_simclr_kd"
TRAIN = True
N, DIN, HID, REP, PROJ, NC = 256, 512, 2048, 512, 128, 100
TAU, T_KD, ALPHA = 0.5, 4.0, 0.5


class SimCLRKD(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(DIN, HID), nn.BatchNorm1d(HID), nn.ReLU(inplace=True), nn.Dropout(0.1),
            nn.Linear(HID, REP), nn.BatchNorm1d(REP), nn.ReLU(inplace=True))
        self.projector = nn.Sequential(nn.Linear(REP, REP), nn.BatchNorm1d(REP), nn.ReLU(), nn.Linear(REP, PROJ))
        self.head = nn.Linear(REP, NC)
        self.teacher = nn.Sequential(nn.Linear(DIN, 1024), nn.ReLU(), nn.Linear(1024, NC)).eval()
        for p in self.teacher.parameters():
            p.requires_grad = False

    def nt_xent(self, z1, z2):
        z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
        sim = torch.mm(z, z.t()) / TAU
        self_mask = torch.eye(sim.shape[0], dtype=torch.bool, device=sim.device)
        sim.masked_fill_(self_mask, float("-inf"))
        n = z1.shape[0]
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(sim.device)
        return F.cross_entropy(sim, targets)

    def forward(self, x1, x2, y):
        h = self.encoder(torch.cat([x1, x2], dim=0))
        z = self.projector(h)
        z1, z2 = z.chunk(2, dim=0)
        loss_con = self.nt_xent(z1, z2)
        s = self.head(h[:N])
        with torch.no_grad():
            t = self.teacher(x1)
        kd = F.kl_div(F.log_softmax(s / T_KD, dim=1), F.softmax(t / T_KD, dim=1), reduction="batchmean") * (T_KD * T_KD)
        ce = F.cross_entropy(s, y)
        return loss_con + ALPHA * kd + (1 - ALPHA) * ce


def make():
    base = torch.randn(N, DIN)
    x1 = base + 0.3 * torch.randn(N, DIN)
    x2 = base + 0.3 * torch.randn(N, DIN)
    return SimCLRKD(), (x1, x2, torch.randint(0, NC, (N,)))
