"""DGCNN point-cloud classifier in training, as its reference code (WangYueFt/dgcnn) writes it,
narrowed: kNN by `topk` of pairwise distances (-||xi||^2 + 2 xi.xj - ||xj||^2), neighbour
features gathered with `x.view(B * N, -1)[idx, :]` after `idx + arange(B) * N`, the centre
repeated k times and `torch.cat((feature - x, x), dim=3).permute(0, 3, 1, 2)`, four EdgeConv
layers (Conv2d 1x1 + BatchNorm2d + LeakyReLU(0.2), max over the k neighbours), the kNN recomputed
on each layer's features (a dynamic graph), Conv1d + BatchNorm1d to 256, max ‖ avg pooling, an
MLP head with BatchNorm1d and Dropout(0.5), cross_entropy(label_smoothing=0.2).
B4 x 3 x 512 points, k = 16: EdgeConv maps 4 x 128 x 512 x 16 (16.8 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "dgcnn_edgeconv"
TRAIN = True

B, NPTS, K, NCLS = 4, 512, 16, 10


def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise_distance = -xx - inner - xx.transpose(2, 1)
    return pairwise_distance.topk(k=k, dim=-1)[1]          # (B, N, k)


def get_graph_feature(x, k=K):
    batch_size, num_dims, num_points = x.size()
    idx = knn(x, k=k)
    idx_base = torch.arange(0, batch_size).view(-1, 1, 1) * num_points
    idx = (idx + idx_base).view(-1)
    x = x.transpose(2, 1).contiguous()
    feature = x.view(batch_size * num_points, -1)[idx, :]
    feature = feature.view(batch_size, num_points, k, num_dims)
    x = x.view(batch_size, num_points, 1, num_dims).repeat(1, 1, k, 1)
    return torch.cat((feature - x, x), dim=3).permute(0, 3, 1, 2).contiguous()


def edge_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin * 2, cout, kernel_size=1, bias=False),
                         nn.BatchNorm2d(cout), nn.LeakyReLU(negative_slope=0.2))


class DGCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = edge_conv(3, 64)
        self.conv2 = edge_conv(64, 64)
        self.conv3 = edge_conv(64, 64)
        self.conv4 = edge_conv(64, 128)
        self.conv5 = nn.Sequential(nn.Conv1d(320, 256, kernel_size=1, bias=False),
                                   nn.BatchNorm1d(256), nn.LeakyReLU(negative_slope=0.2))
        self.linear1 = nn.Linear(512, 256, bias=False)
        self.bn6 = nn.BatchNorm1d(256)
        self.dp1 = nn.Dropout(p=0.5)
        self.linear2 = nn.Linear(256, NCLS)

    def forward(self, x, target):
        batch_size = x.size(0)
        x1 = self.conv1(get_graph_feature(x)).max(dim=-1, keepdim=False)[0]
        x2 = self.conv2(get_graph_feature(x1)).max(dim=-1, keepdim=False)[0]
        x3 = self.conv3(get_graph_feature(x2)).max(dim=-1, keepdim=False)[0]
        x4 = self.conv4(get_graph_feature(x3)).max(dim=-1, keepdim=False)[0]
        x = self.conv5(torch.cat((x1, x2, x3, x4), dim=1))
        x1 = F.adaptive_max_pool1d(x, 1).view(batch_size, -1)
        x2 = F.adaptive_avg_pool1d(x, 1).view(batch_size, -1)
        x = torch.cat((x1, x2), 1)
        x = self.dp1(F.leaky_relu(self.bn6(self.linear1(x)), negative_slope=0.2))
        logits = self.linear2(x)
        return F.cross_entropy(logits, target, label_smoothing=0.2), logits


def make():
    pts = torch.rand(B, 3, NPTS) * 2 - 1
    return DGCNN(), (pts, torch.randint(0, NCLS, (B,)))
