"""Fine-tuning: backbone parameters frozen with requires_grad_(False), BatchNorm in eval, head trained."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
def make():
    backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    for p in backbone.parameters():
        p.requires_grad_(False)
    backbone[1].eval()
    m = nn.Sequential(backbone, nn.Linear(8, 4))
    return m, (torch.randn(4, 3, 10, 10),)
