"""The M5 raw-waveform classifier (Dai et al. 2017) from the torchaudio speech-commands
tutorial, in training: Conv1d(1, 32, 80, stride=4) + BatchNorm1d + ReLU + MaxPool1d(4), three
more Conv1d(3) + BatchNorm1d + ReLU + MaxPool1d(4) blocks (32, 64, 64), avg_pool1d over what is
left, Linear to 35 keywords, log_softmax + nll_loss.
B8 x 1 x 16000 (1 s at 16 kHz): the first map 8 x 32 x 3981 (4.1 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r7_audio_m5"
TRAIN = True
B, T, NC = 8, 16000, 35


class M5(nn.Module):
    def __init__(self, n_input=1, n_output=NC, stride=4, n_channel=32):
        super().__init__()
        self.conv1 = nn.Conv1d(n_input, n_channel, kernel_size=80, stride=stride)
        self.bn1 = nn.BatchNorm1d(n_channel)
        self.pool1 = nn.MaxPool1d(4)
        self.conv2 = nn.Conv1d(n_channel, n_channel, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(n_channel)
        self.pool2 = nn.MaxPool1d(4)
        self.conv3 = nn.Conv1d(n_channel, 2 * n_channel, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * n_channel)
        self.pool3 = nn.MaxPool1d(4)
        self.conv4 = nn.Conv1d(2 * n_channel, 2 * n_channel, kernel_size=3)
        self.bn4 = nn.BatchNorm1d(2 * n_channel)
        self.pool4 = nn.MaxPool1d(4)
        self.fc1 = nn.Linear(2 * n_channel, n_output)

    def forward(self, x, y):
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(F.relu(self.bn2(self.conv2(x))))
        x = self.pool3(F.relu(self.bn3(self.conv3(x))))
        x = self.pool4(F.relu(self.bn4(self.conv4(x))))
        # the tutorial's F.avg_pool1d(x, x.shape[-1]) does not trace under torch.fx (README finding)
        x = F.adaptive_avg_pool1d(x, 1)
        x = x.permute(0, 2, 1)
        x = F.log_softmax(self.fc1(x), dim=2)
        return F.nll_loss(x.squeeze(1), y)


def make():
    return M5().train(), (torch.randn(B, 1, T) * 0.1, torch.randint(0, NC, (B,)))
