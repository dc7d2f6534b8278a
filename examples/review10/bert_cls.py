import math
import torch
from torch import nn
import torch.nn.functional as F

NAME = "bert_cls"
TRAIN = True


def gelu(x):
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


class BertSelfAttention(nn.Module):
    def __init__(self, hidden, heads, p):
        super().__init__()
        self.num_attention_heads = heads
        self.attention_head_size = hidden // heads
        self.all_head_size = hidden
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(p)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        q = self.transpose_for_scores(self.query(hidden_states))
        k = self.transpose_for_scores(self.key(hidden_states))
        v = self.transpose_for_scores(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.attention_head_size)
        scores = scores + attention_mask
        probs = nn.functional.softmax(scores, dim=-1)
        probs = self.dropout(probs)
        ctx = torch.matmul(probs, v)
        ctx = ctx.permute(0, 2, 1, 3).contiguous()
        new_shape = ctx.size()[:-2] + (self.all_head_size,)
        return ctx.view(new_shape)


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, inter, p):
        super().__init__()
        self.attn = BertSelfAttention(hidden, heads, p)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_drop = nn.Dropout(p)
        self.attn_ln = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, inter)
        self.output = nn.Linear(inter, hidden)
        self.out_drop = nn.Dropout(p)
        self.out_ln = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, h, mask):
        a = self.attn(h, mask)
        h = self.attn_ln(self.attn_drop(self.attn_out(a)) + h)
        i = gelu(self.intermediate(h))
        h = self.out_ln(self.out_drop(self.output(i)) + h)
        return h


class BertForSeqCls(nn.Module):
    def __init__(self, vocab=1000, hidden=128, heads=4, inter=512, layers=2, max_pos=64, n_cls=5, p=0.1):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_pos, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.emb_ln = nn.LayerNorm(hidden, eps=1e-12)
        self.emb_drop = nn.Dropout(p)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)))
        self.layers = nn.ModuleList([BertLayer(hidden, heads, inter, p) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)
        self.cls_drop = nn.Dropout(p)
        self.classifier = nn.Linear(hidden, n_cls)

    def forward(self, input_ids, attention_mask, token_type_ids, labels):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, 0:seq_length]
        emb = self.word_embeddings(input_ids) + self.position_embeddings(position_ids) + self.token_type_embeddings(token_type_ids)
        h = self.emb_drop(self.emb_ln(emb))
        ext = attention_mask[:, None, None, :]
        ext = ext.to(dtype=h.dtype)
        ext = (1.0 - ext) * torch.finfo(h.dtype).min
        for layer in self.layers:
            h = layer(h, ext)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        logits = self.classifier(self.cls_drop(pooled))
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        return loss, logits


def make():
    model = BertForSeqCls()
    B, T = 8, 48
    ids = torch.randint(1, 1000, (B, T))
    lengths = torch.tensor([48, 40, 33, 20, 48, 12, 5, 30])
    mask = (torch.arange(T)[None, :] < lengths[:, None]).long()
    ids = ids * mask
    tt = torch.zeros(B, T, dtype=torch.long)
    tt[:, T // 2:] = 1
    labels = torch.randint(0, 5, (B,))
    return model, (ids, mask, tt, labels)
