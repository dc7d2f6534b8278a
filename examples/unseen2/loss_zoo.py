"""A multi-task head with a zoo of losses: KLDivLoss(log_softmax, batchmean) distillation,
label-smoothed cross_entropy with ignore_index=-100, SmoothL1 and Huber box regression,
a hand-written focal loss (gather, pow), cosine_embedding_loss, margin ranking, nll_loss weights.
Training, B32 x 128 features."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "loss_zoo"
TRAIN = True
C = 20


def focal_loss(logits, target, gamma=2.0, alpha=0.25):
    logp = F.log_softmax(logits, dim=-1)
    logpt = logp.gather(1, target.unsqueeze(1)).squeeze(1)
    pt = logpt.exp()
    return (-alpha * (1 - pt).pow(gamma) * logpt).mean()


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 128), nn.Tanh())
        self.cls = nn.Linear(128, C)
        self.box = nn.Linear(128, 4)
        self.emb = nn.Linear(128, 32)
        self.kl = nn.KLDivLoss(reduction="batchmean")
        self.register_buffer("class_w", torch.linspace(0.5, 1.5, C))

    def forward(self, x, y, teacher, boxes, x2, sim, rank_t):
        h = self.trunk(x)
        logits = self.cls(h)
        l_ce = F.cross_entropy(logits, y, ignore_index=-100, label_smoothing=0.1)
        l_kl = self.kl(F.log_softmax(logits / 2.0, dim=-1), F.softmax(teacher / 2.0, dim=-1)) * 4.0
        yc = y.clamp(min=0)
        l_focal = focal_loss(logits, yc)
        l_nll = F.nll_loss(F.log_softmax(logits, -1), y, weight=self.class_w, ignore_index=-100)
        b = self.box(h)
        l_sl1 = F.smooth_l1_loss(b, boxes, beta=0.5)
        l_hub = F.huber_loss(b, boxes, delta=1.0, reduction="sum") / x.shape[0]
        e1, e2 = self.emb(h), self.emb(self.trunk(x2))
        l_cos = F.cosine_embedding_loss(e1, e2, sim, margin=0.2)
        s1, s2 = e1.norm(dim=1), e2.norm(dim=1)
        l_rank = F.margin_ranking_loss(s1, s2, rank_t, margin=0.1)
        total = l_ce + l_kl + l_focal + l_nll + l_sl1 + l_hub + l_cos + l_rank
        return total, torch.stack([l_ce, l_kl, l_focal, l_nll, l_sl1, l_hub, l_cos, l_rank])


def make():
    B = 32
    y = torch.randint(0, C, (B,))
    y[::5] = -100
    sim = torch.where(torch.rand(B) > 0.5, torch.ones(B), -torch.ones(B))
    rank_t = torch.where(torch.rand(B) > 0.5, torch.ones(B), -torch.ones(B))
    return Heads(), (torch.randn(B, 128), y, torch.randn(B, C), torch.randn(B, 4),
                     torch.randn(B, 128), sim, rank_t)
