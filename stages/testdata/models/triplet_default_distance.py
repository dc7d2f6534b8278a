"""F.triplet_margin_with_distance_loss with its default distance.

distance_function=None is pairwise_distance (p = 2, eps = 1e-6), so gcdbg
reads the call as triplet_margin_loss (normalize_composed.go); here with a
margin and swap=True, gradients for all three inputs. A callable distance
(an nn.PairwiseDistance, as PyTorch's OpInfo samples pass) cannot be an
argument of a torch.fx trace: out of scope (gcdbg ops --coverage).
"""
import torch
import torch.nn.functional as F

NAME = "triplet_default_distance"


def make():
    def f(a, p, n):
        return F.triplet_margin_with_distance_loss(a, p, n, margin=0.5, swap=True)
    a = torch.randn(5, 7, requires_grad=True)
    p = torch.randn(5, 7, requires_grad=True)
    n = torch.randn(5, 7, requires_grad=True)
    return f, (a, p, n)
