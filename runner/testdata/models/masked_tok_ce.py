"""Token classifier (embedding + GRU-free MLP tagger) in training with the losses users write over
an ignore-index mask: `valid = labels != -100; F.cross_entropy(logits[valid], labels[valid])`,
the same with label smoothing and class weights, a masked MSE on a regression head
(`F.mse_loss(pred[valid], score[valid])`, and by hand: a sum divided by `labels[valid].size(0)`), an L1 / Huber pair on the same selection,
nll_loss of log_softmax(logits[valid], -1), an L1 computed in float64 (`.to(torch.float64)`), and
cross_entropy / weighted nll_loss over a mask that keeps some -100 labels (ignored inside the selection)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True
V, E, T, B, K = 50, 16, 12, 3, 7


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.fc = nn.Linear(E, 32)
        self.out = nn.Linear(32, K)
        self.reg = nn.Linear(32, 1)
        self.register_buffer("class_w", torch.linspace(0.5, 2.0, K))

    def forward(self, tokens, labels, score):
        h = torch.tanh(self.fc(self.emb(tokens)))
        logits = self.out(h)                  # B, T, K
        pred = self.reg(h).squeeze(-1)        # B, T
        valid = labels != -100
        ce = F.cross_entropy(logits[valid], labels[valid])
        ce_ls = F.cross_entropy(logits[valid], labels[valid], weight=self.class_w, label_smoothing=0.1)
        mse = F.mse_loss(pred[valid], score[valid]) + ((pred[valid] - score[valid]) ** 2).sum() / labels[valid].size(0)
        l1 = F.l1_loss(pred[valid], score[valid]) + F.huber_loss(pred[valid], score[valid], delta=0.5)
        nll = F.nll_loss(F.log_softmax(logits[valid], -1), labels[valid])
        l1_64 = (pred[valid].to(torch.float64) - score[valid].double()).abs().mean().float()
        keep = tokens % 3 != 0                # a mask that keeps some -100 labels: ignored inside it
        ce_keep = F.cross_entropy(logits[keep], labels[keep])
        nll_keep = F.nll_loss(F.log_softmax(logits[keep], -1), labels[keep], weight=self.class_w)
        return ce + 0.5 * ce_ls + mse + l1 + nll + l1_64 + ce_keep + nll_keep, ce.detach()


def make():
    torch.manual_seed(0)
    tokens = torch.randint(0, V, (B, T))
    labels = torch.randint(0, K, (B, T))
    labels[torch.rand(B, T) < 0.3] = -100
    score = torch.randn(B, T)
    return Tagger(), (tokens, labels, score)
