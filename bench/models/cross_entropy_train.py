"""Cross-entropy over 10,000 classes for 256 rows of logits, gradient of the logits; training."""
import torch
import torch.nn.functional as F

NAME = "cross_entropy_train"


def f(logits, target):
    return F.cross_entropy(logits, target)


def make():
    logits = torch.randn(256, 10000, requires_grad=True)
    target = torch.randint(0, 10000, (256,))
    return f, (logits, target)
