"""Llama-style decoder LM step in training, written the way the HF/Meta code reads: token
embedding, 2 decoder layers of (RMSNorm -> attention with rotary position embeddings -> residual,
RMSNorm -> SwiGLU MLP -> residual), final RMSNorm, untied LM head, shifted next-token
cross-entropy with ignore_index=-100 on padded labels. RMSNorm computes its variance in float32
(x.pow(2).mean(-1, keepdim=True), torch.rsqrt). Rotary embeddings: inv_freq buffer, positions from
torch.arange, torch.einsum("i,j->ij") for the angles, cos/sin, the interleaved (Meta) form that
slices even and odd features (x[..., 0::2], x[..., 1::2]) and puts them back with
torch.stack(..., -1).flatten(-2). Causal attention written out (PyTorch 1.13 has no
F.scaled_dot_product_attention): QK^T / sqrt(d) + a triu(-inf) mask from torch.full, softmax in
float32, dropout 0. B8 x T256 x d512, 8 heads, SwiGLU hidden 1376, vocab 4096: attention scores
16 MB, logits 32 MB."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "llama_block"
TRAIN = True

VOCAB, SEQ, D, HEADS, HIDDEN, LAYERS = 4096, 256, 512, 8, 1376, 2


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x


class Rotary(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x):
        # x: B, H, T, hd
        T = x.shape[2]
        t = torch.arange(T, device=x.device).type_as(self.inv_freq)
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)       # T, hd/2
        return freqs.cos()[None, None], freqs.sin()[None, None]


def apply_rotary(x, cos, sin):
    x1 = x[..., 0::2]
    x2 = x[..., 1::2]
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
    return out.flatten(-2)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.hd = D // HEADS
        self.q_proj = nn.Linear(D, D, bias=False)
        self.k_proj = nn.Linear(D, D, bias=False)
        self.v_proj = nn.Linear(D, D, bias=False)
        self.o_proj = nn.Linear(D, D, bias=False)
        self.rotary = Rotary(self.hd)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, HEADS, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(B, T, HEADS, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(B, T, HEADS, self.hd).transpose(1, 2)
        cos, sin = self.rotary(q)
        q = apply_rotary(q, cos, sin)
        k = apply_rotary(k, cos, sin)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        mask = torch.full((T, T), float("-inf"), device=x.device)
        mask = torch.triu(mask, diagonal=1)
        scores = scores + mask
        probs = F.softmax(scores.float(), dim=-1).type_as(q)
        out = torch.matmul(probs, v)
        out = out.transpose(1, 2).contiguous().view(B, T, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(D, HIDDEN, bias=False)
        self.up_proj = nn.Linear(D, HIDDEN, bias=False)
        self.down_proj = nn.Linear(HIDDEN, D, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm(D)
        self.self_attn = Attention()
        self.post_attention_layernorm = RMSNorm(D)
        self.mlp = MLP()

    def forward(self, h):
        h = h + self.self_attn(self.input_layernorm(h))
        return h + self.mlp(self.post_attention_layernorm(h))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([DecoderLayer() for _ in range(LAYERS)])
        self.norm = RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, input_ids, labels):
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = layer(h)
        logits = self.lm_head(self.norm(h)).float()
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return F.cross_entropy(shift_logits.view(-1, VOCAB), shift_labels.view(-1), ignore_index=-100)


def make():
    B = 8
    ids = torch.randint(0, VOCAB, (B, SEQ))
    labels = ids.clone()
    labels[:, 200:] = -100      # padding at the end of every sequence but the first
    labels[0, 200:] = ids[0, 200:]
    return Llama(), (ids, labels)
