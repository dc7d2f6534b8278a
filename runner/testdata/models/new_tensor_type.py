"""Two Tensor methods from real code, in training: x.new_tensor(data) (fast_neural_style's
normalize_batch: batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1); also a nested list, an
int list in a long tensor and dtype=torch.float64) and x.type(dtype) (guided-diffusion's
`emb_layers(emb).type(h.dtype)`; also x.type(torch.float64) and x.type("torch.DoubleTensor")).
Both were refused as unsupported Tensor methods (examples/review8, helper-89)."""
import torch
import torch.nn as nn

NAME = "new_tensor_type"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.emb = nn.Linear(5, 4)

    def forward(self, x, t):
        mean = x.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
        std = x.new_tensor([[0.229], [0.224], [0.225]]).unsqueeze(-1)
        h = self.conv((x - mean) / std)
        e = self.emb(t.type(torch.float64).float()).type(h.dtype)
        h = h + e[:, :, None, None]
        w = x.new_tensor([1.0, 2.0, 0.5, 0.25], dtype=torch.float64)
        idx = x.new_tensor([3, 0, 1, 2], dtype=torch.long)
        s = (h.type("torch.DoubleTensor") * w.view(1, -1, 1, 1)).sum() + h[:, idx].float().mean()
        return s.float()


def make():
    return M(), (torch.rand(2, 3, 8, 8), torch.randn(2, 5))
