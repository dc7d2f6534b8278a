import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(32, 4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(6))
    def forward(self, src, tgt):
        return self.t(src, tgt, tgt_mask=self.mask).pow(2).mean()
def make():
    return M(), (torch.randn(2, 5, 32), torch.randn(2, 6, 32))
