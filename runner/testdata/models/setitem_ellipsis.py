"""Item assignment with an Ellipsis, as Hugging Face's code writes it
(top-p filtering's `sorted_indices_to_remove[..., 1:] = ...[..., :-1]`,
`mask[..., 0] = 0`), in training: basic subscripts (ints and slices after
the Ellipsis) and subscripts with an index tensor or a mask. The render
step could not encode the Ellipsis for index_put's eager fallback
(review10 finding 9)."""
import torch
from torch import nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(6, 6)

    def forward(self, x, idx):
        y = self.l(x)
        z = y.clone()
        z[..., 1:] = y[..., :-1] * 2
        z[..., 0] = 0.0
        z[..., idx] = 0.5
        m = z > 0.5
        z[..., 2][m[..., 2]] = 1.0
        return z.pow(2).sum()


def make():
    return M(), (torch.randn(3, 4, 6), torch.tensor([0, 3]))
