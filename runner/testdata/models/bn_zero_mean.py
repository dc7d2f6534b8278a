"""Repro (examples/review7 finding 2): MobileNetV2's linear bottleneck, BatchNorm2d (no ReLU) ->
1x1 Conv2d -> BatchNorm2d, in training. The second BN's batch mean is exactly 0 in exact
arithmetic (a linear map of a zero-mean map), so its running_mean is 0.1 x float32 noise. Exported,
then stripped of PyTorch's values (repro/strip_expected.py), `gcdbg run` judged that
running_mean MISMATCH against a simulated baseline 10x smaller than the compiled float32 error
(mbv2_stack --seed 1: features.2.conv.0.1.running_mean rmse 1.12e-9 vs 3 x 1.08e-10 + 1e-12).
B8 x 24 x 32 x 32 -> 144 channels."""
import torch
import torch.nn as nn

NAME = "bn_zero_mean"
TRAIN = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2d(16, 24, 3, padding=1, bias=False)
        self.bn0 = nn.BatchNorm2d(24)
        self.expand = nn.Conv2d(24, 144, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(144)
        nn.init.kaiming_normal_(self.expand.weight, mode="fan_out")

    def forward(self, x):
        h = self.bn1(self.expand(self.bn0(self.conv0(x))))
        return torch.nn.functional.relu6(h).mean()


def make():
    return Net().train(), (torch.randn(8, 16, 32, 32),)
