"""Multi-label document classification over padded sequences, in training: embedding
(padding_idx=0), a 2-layer bidirectional GRU (PACK = True: run over nn.utils.rnn.pack_padded_sequence(lengths,
batch_first=True, enforce_sorted=False), unpacked with pad_packed_sequence(total_length=T); the
exporter refuses it, so by default over the padded batch),
then a masked mean pool ((h * mask).sum(1) / lengths) and a masked max pool (masked_fill(~mask,
-inf).amax(1)) concatenated, Dropout, a 2-layer MLP and binary_cross_entropy_with_logits(
pos_weight=) over 20 labels. B64 x T160, emb 128, hidden 128 per direction: GRU output 64 x 160 x
256 (10.5 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

NAME = "nlp_seqcls_pooled"
TRAIN = True

VOCAB, B, T, EMB, HID, LABELS = 8000, 64, 160, 128, 128, 20
PACK = False  # True: pack_padded_sequence/pad_packed_sequence, refused at capture (README finding)


class DocClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=0)
        self.rnn = nn.GRU(EMB, HID, num_layers=2, batch_first=True, bidirectional=True)  # dropout=0.2 is refused in training (finding)
        self.drop = nn.Dropout(0.3)
        self.mlp = nn.Sequential(nn.Linear(4 * HID, 256), nn.ReLU(), nn.Linear(256, LABELS))
        self.register_buffer("pos_weight", torch.linspace(1.0, 4.0, LABELS))

    def forward(self, ids, lengths, targets):
        x = self.emb(ids)
        if PACK:
            packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.rnn(packed)
            h, _ = pad_packed_sequence(out, batch_first=True, total_length=ids.size(1))
        else:  # the workaround: the GRU over the padded batch (its backward direction reads padding first)
            h, _ = self.rnn(x)
        mask = (torch.arange(ids.size(1), device=ids.device)[None, :] < lengths[:, None]).unsqueeze(-1)
        mean = (h * mask).sum(1) / lengths[:, None].float()
        mx = h.masked_fill(~mask, float("-inf")).amax(1)
        logits = self.mlp(self.drop(torch.cat([mean, mx], dim=-1)))
        return F.binary_cross_entropy_with_logits(logits, targets, pos_weight=self.pos_weight)


def make():
    lengths = torch.randint(20, T + 1, (B,))
    ids = torch.randint(1, VOCAB, (B, T)).masked_fill(torch.arange(T)[None, :] >= lengths[:, None], 0)
    targets = (torch.rand(B, LABELS) < 0.2).float()
    return DocClassifier(), (ids, lengths, targets)
