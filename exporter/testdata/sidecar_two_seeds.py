"""A Linear whose weight (64 x 64 floats, 16 KB) goes to the sidecar: exported twice with two
seeds into one folder, each trace must keep its own sidecar (exporter/sidecar_test.go)."""
import torch
import torch.nn as nn

NAME = "sidecar_two_seeds"
TRAIN = True


def make():
    return nn.Sequential(nn.Linear(64, 64), nn.Tanh()), (torch.randn(8, 64),)
