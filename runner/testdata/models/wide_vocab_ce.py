"""A language-model head over a wide vocabulary, in training: token embeddings gathered from a
20,000-row table by 64 ids, a Linear to 20,000 logits, cross_entropy with ignore_index on half the
positions. Both the gather and the loss only pick elements: float32 copies a table row exactly and
sums one pick per token. A simulated float32 rounding that counted table rows / ids as summed terms
(~18 units of roundoff on every embedding) and every logit as a term of the mean loss (1.3e6 terms: a
1.1e3-roundoff perturbation) made the loss's baseline thousands of times float32's own error."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True
V, N, D = 20000, 64, 4


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.proj = nn.Linear(D, D)
        self.head = nn.Linear(D, V)

    def forward(self, ids, labels):
        h = torch.tanh(self.proj(self.emb(ids)))
        return F.cross_entropy(self.head(h), labels)


def make():
    torch.manual_seed(0)
    ids = torch.randint(0, V, (N,))
    labels = torch.randint(0, V, (N,))
    labels[::2] = -100
    return M(), (ids, labels)
