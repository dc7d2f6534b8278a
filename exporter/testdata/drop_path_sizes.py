"""Size-tuple arithmetic and in-place Bernoulli draws as users write them: HF's
`new_shape = x.size()[:-1] + (heads, head_dim)` (tuple concatenation), timm's drop_path
(`shape = (x.shape[0],) + (1,) * (x.ndim - 1)` (repetition), then
`x.new_empty(shape).bernoulli_(keep_prob)` and `.div_(keep_prob)`), and a `bernoulli_()` with
bernoulli_'s default p = 0.5, in training."""
import torch
import torch.nn as nn

TRAIN = True


def drop_path(x, drop_prob: float = 0.0, training: bool = False):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)

    def forward(self, x):
        y = self.fc(x)
        y = y.view(y.size()[:-1] + (4, 8))
        y = x.view(y.shape) + drop_path(y, 0.3, self.training)
        coin = torch.empty_like(y[:, :1, :1]).bernoulli_()
        return (y * coin).sum(), y


def make():
    return M(), (torch.randn(16, 5, 32),)
