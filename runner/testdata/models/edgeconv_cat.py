"""DGCNN's EdgeConv (the point-cloud classifier's reference code), in training: kNN by topk of
pairwise distances, neighbour features gathered with `x.view(B * N, -1)[idx, :]`, the centre
repeated k times (`x.view(B, N, 1, C).repeat(1, 1, k, 1)`) and `torch.cat((feature - x, x), 3)`,
Conv2d + BatchNorm2d + LeakyReLU, max over the neighbours, Conv1d, max/avg pooling,
cross_entropy(label_smoothing). The compiled forward failed to render: render/copy_reads.go let
the cat read the repeat's copy through an index and dropped that copy's memory, but a cat kernel
copies its parts by name (cat_copy.go): "buffer "buf17" is read but has no storage"."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
K = 8
def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise_distance = -xx - inner - xx.transpose(2, 1)
    return pairwise_distance.topk(k=k, dim=-1)[1]
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
class DGCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(6, 32, 1, bias=False), nn.BatchNorm2d(32), nn.LeakyReLU(0.2))
        self.conv2 = nn.Sequential(nn.Conv2d(64, 32, 1, bias=False), nn.BatchNorm2d(32), nn.LeakyReLU(0.2))
        self.conv5 = nn.Sequential(nn.Conv1d(64, 128, 1, bias=False), nn.BatchNorm1d(128), nn.LeakyReLU(0.2))
        self.fc = nn.Linear(256, 10)
    def forward(self, x, y):
        x1 = self.conv1(get_graph_feature(x)).max(dim=-1, keepdim=False)[0]
        x2 = self.conv2(get_graph_feature(x1)).max(dim=-1, keepdim=False)[0]
        x = self.conv5(torch.cat((x1, x2), dim=1))
        x = torch.cat((F.adaptive_max_pool1d(x, 1).view(x.size(0), -1), F.adaptive_avg_pool1d(x, 1).view(x.size(0), -1)), 1)
        return F.cross_entropy(self.fc(x), y, label_smoothing=0.2)
def make():
    torch.manual_seed(0)
    return DGCNN(), (torch.randn(4, 3, 64), torch.randint(0, 10, (4,)))
