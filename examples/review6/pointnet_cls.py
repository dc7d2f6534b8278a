"""PointNet classifier in training, as the popular PyTorch ports write it: an input T-Net
(Conv1d 1x1 + BatchNorm1d + ReLU to 512 channels, torch.max over the points, an FC stack with
BatchNorm1d, a k x k transform plus torch.eye(k) flattened and repeated per sample), torch.bmm
of the points with it, a feature T-Net (k = 64) the same way, the shared MLP to a 512-d global
feature by max pooling, an FC head with Dropout(0.4), log_softmax + nll_loss, and the
feature-transform regulariser mean(||A A^T - I||_F) weighted 0.001.
B16 x 3 x 512 points, 10 classes: widest maps 16 x 512 x 512 (16.8 MB), three of them."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "pointnet_cls"
TRAIN = True

B, NPTS, NCLS, GF = 16, 512, 10, 512


class TNet(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.conv1 = nn.Conv1d(k, 64, 1)
        self.conv2 = nn.Conv1d(64, 128, 1)
        self.conv3 = nn.Conv1d(128, GF, 1)
        self.fc1 = nn.Linear(GF, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, k * k)
        self.bn1 = nn.BatchNorm1d(64)
        self.bn2 = nn.BatchNorm1d(128)
        self.bn3 = nn.BatchNorm1d(GF)
        self.bn4 = nn.BatchNorm1d(256)
        self.bn5 = nn.BatchNorm1d(128)

    def forward(self, x):
        batchsize = x.size()[0]
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, GF)
        x = F.relu(self.bn4(self.fc1(x)))
        x = F.relu(self.bn5(self.fc2(x)))
        x = self.fc3(x)
        iden = torch.eye(self.k, dtype=x.dtype).flatten().view(1, self.k * self.k).repeat(batchsize, 1)
        x = x + iden
        return x.view(-1, self.k, self.k)


class PointNetCls(nn.Module):
    def __init__(self):
        super().__init__()
        self.stn = TNet(3)
        self.fstn = TNet(64)
        self.conv1 = nn.Conv1d(3, 64, 1)
        self.conv2 = nn.Conv1d(64, 128, 1)
        self.conv3 = nn.Conv1d(128, GF, 1)
        self.bn1 = nn.BatchNorm1d(64)
        self.bn2 = nn.BatchNorm1d(128)
        self.bn3 = nn.BatchNorm1d(GF)
        self.fc1 = nn.Linear(GF, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, NCLS)
        self.dropout = nn.Dropout(p=0.4)
        self.bn4 = nn.BatchNorm1d(256)
        self.bn5 = nn.BatchNorm1d(128)

    def forward(self, x, target):
        n_pts = x.size()[2]
        trans = self.stn(x)
        x = x.transpose(2, 1)
        x = torch.bmm(x, trans)
        x = x.transpose(2, 1)
        x = F.relu(self.bn1(self.conv1(x)))
        trans_feat = self.fstn(x)
        x = x.transpose(2, 1)
        x = torch.bmm(x, trans_feat)
        x = x.transpose(2, 1)
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, GF)
        x = F.relu(self.bn4(self.fc1(x)))
        x = F.relu(self.bn5(self.dropout(self.fc2(x))))
        x = self.fc3(x)
        logp = F.log_softmax(x, dim=1)
        loss = F.nll_loss(logp, target)
        d = trans_feat.size()[1]
        I = torch.eye(d)[None, :, :]
        reg = torch.mean(torch.norm(torch.bmm(trans_feat, trans_feat.transpose(2, 1)) - I, dim=(1, 2)))
        return loss + 0.001 * reg, logp


def make():
    pts = torch.rand(B, 3, NPTS) * 2 - 1
    target = torch.randint(0, NCLS, (B,))
    return PointNetCls(), (pts, target)
