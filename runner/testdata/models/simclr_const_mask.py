"""SimCLR's info_nce_loss as sthalles/SimCLR writes it (examples/review8, helper-89), small: the
similarity matrix's diagonal dropped by boolean-mask indexing with a constant mask
(`sim[~torch.eye(n, dtype=torch.bool)].view(n, -1)`), positives and negatives picked with a mask of
torch.arange comparisons, then cat, / temperature and cross-entropy, BatchNorm in training. The
selections' shapes are static because the masks are constants of the graph
(stages/normalize_const_mask.go); they were refused as data-dependent before."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "simclr_const_mask"
TRAIN = True
N, DIN, HID, PROJ, TAU = 48, 32, 64, 16, 0.07


class SimCLR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(DIN, HID), nn.BatchNorm1d(HID), nn.ReLU())
        self.proj = nn.Sequential(nn.Linear(HID, HID), nn.ReLU(), nn.Linear(HID, PROJ))

    def info_nce_loss(self, features):
        labels = torch.cat([torch.arange(N) for i in range(2)], dim=0)
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
        features = F.normalize(features, dim=1)
        similarity_matrix = torch.matmul(features, features.T)
        mask = torch.eye(labels.shape[0], dtype=torch.bool)
        labels = labels[~mask].view(labels.shape[0], -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
        positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
        logits = torch.cat([positives, negatives], dim=1)
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        logits = logits / TAU
        return logits, labels

    def forward(self, x1, x2):
        f = self.proj(self.backbone(torch.cat([x1, x2], 0)))
        logits, labels = self.info_nce_loss(f)
        return F.cross_entropy(logits, labels)


def make():
    base = torch.randn(N, DIN)
    return SimCLR(), (base + 0.3 * torch.randn(N, DIN), base + 0.3 * torch.randn(N, DIN))
