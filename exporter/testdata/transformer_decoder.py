"""nn.TransformerDecoderLayer (batch_first, dropout 0.1) with a causal tgt_mask and memory, training."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.dec = nn.TransformerDecoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(6))
    def forward(self, tgt, mem):
        return self.dec(tgt, mem, tgt_mask=self.mask).pow(2).mean()
def make():
    return M(), (torch.randn(2, 6, 32), torch.randn(2, 5, 32))
