"""Bidirectional-LSTM text classifier, one training step, as in the usual sentiment tutorials:
nn.Embedding(padding_idx=0), embedding Dropout, 2-layer nn.LSTM(batch_first=True,
bidirectional=True, dropout=0.2 between layers), masked mean pooling over the real tokens
(mask from token ids != PAD, sum / count.clamp(min=1)), Dropout, Linear -> ReLU -> Linear,
F.cross_entropy. Padded batch: lengths drawn in [8, 64], the tail filled with PAD.
B32 x T64, vocab 5000, emb 128, hidden 128 per direction (outputs 32 x 64 x 256, 2 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r9_bilstm_textcls"
TRAIN = True
B, T, V, E, H, NC, PAD = 32, 64, 5000, 128, 128, 4, 0


class BiLSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(V, E, padding_idx=PAD)
        self.emb_drop = nn.Dropout(0.25)
        # was: self.lstm = nn.LSTM(E, H, num_layers=2, batch_first=True, bidirectional=True, dropout=0.2)
        # refused by the exporter (the inter-layer dropout mask is drawn inside the module); its
        # suggested rewrite: two single-layer LSTMs with an nn.Dropout(0.2) between them
        self.lstm1 = nn.LSTM(E, H, batch_first=True, bidirectional=True)
        self.lstm_drop = nn.Dropout(0.2)
        self.lstm2 = nn.LSTM(2 * H, H, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.3)
        self.fc1 = nn.Linear(2 * H, H)
        self.fc2 = nn.Linear(H, NC)

    def forward(self, tokens, labels):
        mask = (tokens != PAD).unsqueeze(-1).float()          # B x T x 1
        emb = self.emb_drop(self.embedding(tokens))
        # was: out, _ = self.lstm(emb)
        out, _ = self.lstm1(emb)
        out, _ = self.lstm2(self.lstm_drop(out))              # B x T x 2H
        pooled = (out * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        h = F.relu(self.fc1(self.drop(pooled)))
        logits = self.fc2(h)
        return F.cross_entropy(logits, labels)


def make():
    lengths = torch.randint(8, T + 1, (B,))
    tokens = torch.randint(1, V, (B, T))
    pos = torch.arange(T).unsqueeze(0)
    tokens = tokens.masked_fill(pos >= lengths.unsqueeze(1), PAD)
    labels = torch.randint(0, NC, (B,))
    return BiLSTMClassifier(), (tokens, labels)
