"""Embedding lookup in training: 32,000 x 512 table, 64 x 128 token ids, gradient of the table."""
import torch
import torch.nn as nn

NAME = "embedding_train"
TRAIN = True


def make():
    m = nn.Embedding(32000, 512)
    m.train()
    return m, (torch.randint(0, 32000, (64, 128)),)
