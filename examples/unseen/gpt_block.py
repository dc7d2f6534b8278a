"""GPT-style decoder: token + position embedding, 2 pre-LN blocks of causal self-attention
(F.scaled_dot_product_attention is PyTorch 2.x, so attention by matmuls with a registered causal
mask), GELU MLP, dropout, final LayerNorm, LM head and cross-entropy; training, batch 8 x T 128,
d 256."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "gpt_block"
TRAIN = True

V, T, D, H, L = 512, 128, 256, 4, 2


class CausalSelfAttention(nn.Module):
    def __init__(self, d, n_head, block_size, p=0.1):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.attn_drop = nn.Dropout(p)
        self.resid_drop = nn.Dropout(p)
        self.n_head = n_head
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // self.n_head))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_drop(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_drop(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, d, p=0.1):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * d, d)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, d, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, n_head, block_size)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, D)
        self.wpe = nn.Embedding(T, D)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList([Block(D, H, T) for _ in range(L)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, V, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying
        self.register_buffer("pos_ids", torch.arange(T).unsqueeze(0), persistent=False)

    def forward(self, idx, targets):
        b, t = idx.size()
        # torch.arange(0, t) on fx's symbolic t cannot be traced: a position-id buffer instead
        pos = self.pos_ids[:, :t]
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


def make():
    idx = torch.randint(0, V, (8, T))
    targets = torch.randint(0, V, (8, T))
    return GPT(), (idx, targets)
