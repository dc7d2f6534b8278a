"""A spatial transformer and affine augmentation, in training: a localization net predicts theta
(Linear initialised near identity), F.affine_grid(theta, x.size()) with align_corners False and
True, F.grid_sample bilinear with zeros, border and reflection padding (grids reaching outside
the image, so every padding mode acts), nearest on a one-hot mask; gradients flow to the image,
the localization net through theta, and a learned flow field added to the grid."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(3 * 6 * 7, 6)
        with torch.no_grad():
            self.loc.weight.mul_(0.05)
            self.loc.bias.copy_(torch.tensor([1.3, 0.2, 0.1, -0.25, 1.2, -0.1]))
        self.flow = nn.Parameter(0.3 * torch.randn(1, 5, 6, 2))
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
    def forward(self, x, mask):
        theta = self.loc(x.flatten(1)).view(-1, 2, 3)
        g0 = F.affine_grid(theta, x.size(), align_corners=False)
        g1 = F.affine_grid(theta, [x.size(0), 1, 5, 6], align_corners=True)
        a = F.grid_sample(x, g0, mode="bilinear", padding_mode="zeros", align_corners=False)
        b = F.grid_sample(self.conv(x), g1 + self.flow, mode="bilinear", padding_mode="border", align_corners=True)
        c = F.grid_sample(x, g0 * 1.5, mode="bilinear", padding_mode="reflection", align_corners=False)
        d = F.grid_sample(x, g1 * 1.7, mode="bilinear", padding_mode="reflection", align_corners=True)
        m = F.grid_sample(mask, g1 + self.flow, mode="nearest", padding_mode="zeros", align_corners=False)
        loss = a.square().mean() + (b * b.roll(1, 1)).mean() + c.abs().mean() + d.sin().mean() + (m * b[:, :2]).mean()
        return loss, m
def make():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 6, 7, requires_grad=True)
    mask = F.one_hot(torch.randint(0, 2, (2, 6, 7)), 2).permute(0, 3, 1, 2).float()
    return M(), (x, mask)
