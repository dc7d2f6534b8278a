"""Seq2seq translation step with Bahdanau attention and teacher forcing, in training: source
tokens through nn.Embedding(padding_idx=0) and a bidirectional nn.GRU(batch_first), the final
states of both directions concatenated and passed through Linear + tanh to the decoder's initial
state; the decoder is an nn.GRUCell stepped in a Python loop over the target (teacher forcing:
the input at step t is the gold token t), each step with additive attention
(v^T tanh(W_enc enc + W_dec h)), padded source positions masked_fill'ed with -inf, softmax,
torch.bmm context, the cell's input cat([emb, context]), Dropout, an output Linear over
cat([h, context]) to the vocabulary; the per-step logits torch.stack'ed and cross_entropy with
ignore_index=0 over the padded targets (label_smoothing=0.1).
B32, source 24 tokens, target 16 steps, vocab 2000, hidden 128: logits 32 x 16 x 2000 (4.1 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "seq2seq_attn"
TRAIN = True

B, S, T, V, E, H = 32, 24, 16, 2000, 96, 128


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, E, padding_idx=0)
        self.tgt_emb = nn.Embedding(V, E, padding_idx=0)
        self.encoder = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * H, H)
        self.att_enc = nn.Linear(2 * H, H, bias=False)
        self.att_dec = nn.Linear(H, H)
        self.att_v = nn.Linear(H, 1, bias=False)
        self.cell = nn.GRUCell(E + 2 * H, H)
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(H + 2 * H, V)

    def forward(self, src, tgt_in, tgt_out):
        src_mask = src != 0                                   # B, S
        enc, h_n = self.encoder(self.src_emb(src))            # B, S, 2H ; 2, B, H
        h = torch.tanh(self.bridge(torch.cat([h_n[0], h_n[1]], dim=-1)))
        keys = self.att_enc(enc)                              # B, S, H
        emb = self.drop(self.tgt_emb(tgt_in))                 # B, T, E
        logits = []
        # written first as `for t in range(tgt_in.size(1))`: torch.fx cannot loop a traced number
        # of times, and the exporter refuses it (now naming this line and saying to loop over a
        # Python int); the decoder loops over its fixed target length T
        for t in range(T):
            score = self.att_v(torch.tanh(keys + self.att_dec(h).unsqueeze(1))).squeeze(-1)
            score = score.masked_fill(~src_mask, float("-inf"))
            alpha = F.softmax(score, dim=-1)
            ctx = torch.bmm(alpha.unsqueeze(1), enc).squeeze(1)
            h = self.cell(torch.cat([emb[:, t], ctx], dim=-1), h)
            logits.append(self.out(self.drop(torch.cat([h, ctx], dim=-1))))
        logits = torch.stack(logits, dim=1)                   # B, T, V
        loss = F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=0, label_smoothing=0.1)
        return loss, logits


def make():
    src_len = torch.randint(8, S + 1, (B,))
    src_len[0] = S
    src = torch.randint(3, V, (B, S)).masked_fill(torch.arange(S)[None] >= src_len[:, None], 0)
    tgt_len = torch.randint(4, T + 1, (B,))
    tgt = torch.randint(3, V, (B, T + 1))
    tgt[:, 0] = 1                                            # <bos>
    tgt = tgt.masked_fill(torch.arange(T + 1)[None] > tgt_len[:, None], 0)
    tgt[torch.arange(B), tgt_len] = 2                        # <eos>
    return Seq2Seq(), (src, tgt[:, :-1], tgt[:, 1:])
