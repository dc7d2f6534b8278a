"""Kim-style text CNN: Embedding(padding_idx=0), three Conv1d widths (3, 4, 5) over the
sequence, ReLU, max over time, concat, dropout, Linear, cross-entropy; training, batch 32 x
sequence 64, vocab 5000, embedding 128."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "text_cnn"
TRAIN = True


class TextCNN(nn.Module):
    def __init__(self, vocab=5000, emb=128, n_filters=100, widths=(3, 4, 5), n_classes=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(emb, n_filters, w) for w in widths])
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(n_filters * len(widths), n_classes)

    def forward(self, tokens, labels):
        x = self.embedding(tokens).permute(0, 2, 1)  # B, E, L
        pooled = [F.relu(conv(x)).max(dim=2)[0] for conv in self.convs]
        h = self.dropout(torch.cat(pooled, dim=1))
        logits = self.fc(h)
        return F.cross_entropy(logits, labels)


def make():
    tokens = torch.randint(1, 5000, (32, 64))
    tokens[:, 50:] = 0  # padded tails
    return TextCNN(), (tokens, torch.randint(0, 4, (32,)))
