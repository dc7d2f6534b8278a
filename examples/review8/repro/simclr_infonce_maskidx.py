"""SimCLR's info_nce_loss as in sthalles/SimCLR (the most-copied PyTorch SimCLR): labels and the
diagonal removed by boolean-mask indexing (`similarity_matrix[~mask].view(n, -1)`), positives and
negatives selected by `similarity_matrix[labels.bool()]`, logits = cat / temperature, CE against
zeros. Same projector as simclr_kd.py, batch 256 x 2 views."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_simclr_infonce_maskidx"
TRAIN = True
N, DIN, HID, PROJ, TAU = 256, 512, 1024, 128, 0.07


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
