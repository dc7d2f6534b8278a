"""GPT-2-style language model step in training: token + positional embedding (positions from
torch.arange), one pre-LN decoder block with a packed nn.Linear qkv projection (c_attn, split
into heads), causal attention by matmuls with a tril mask buffer, attention/residual dropout,
GELU(tanh) MLP (GPT-2's gelu_new), final LayerNorm, LM head tied to the token embedding and
next-token cross-entropy over an 8k vocabulary. Batch 8 x seq 128 x d 256, 4 heads."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "gpt2_block"
TRAIN = True

VOCAB, SEQ, D, HEADS = 8192, 128, 256, 4


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        self.attn_dropout = nn.Dropout(0.1)
        self.resid_dropout = nn.Dropout(0.1)
        self.register_buffer("bias", torch.tril(torch.ones(SEQ, SEQ)).view(1, 1, SEQ, SEQ))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(D)
        self.c_fc = nn.Linear(D, 4 * D)
        self.c_proj = nn.Linear(4 * D, D)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.drop(self.c_proj(h))


class GPT2(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(SEQ, D)
        self.drop = nn.Dropout(0.1)
        self.block = Block()
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, 0.0, 0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, idx):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        x = self.ln_f(self.block(x))
        logits = self.lm_head(x)
        # next-token prediction: position t predicts token t+1
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)),
                               idx[:, 1:].reshape(-1))
        return loss


def make():
    return GPT2(), (torch.randint(0, VOCAB, (8, SEQ)),)
