"""Message-passing graph network (GIN/MPNN style) on a mini-batch of molecules-like graphs, in
training: node features and edge features, 3 layers each computing messages
relu(W_n x[src] + W_e edge_attr) per edge, summing them into the destination nodes with
torch.zeros_like(x).index_add_(0, dst, msg), normalising by in-degree (a scatter_add_ of ones,
clamp(min=1)), a GIN update MLP((1 + eps) * x + agg) with a learnable eps, BatchNorm1d, ReLU,
Dropout and a residual; graph readout by mean pooling over the `batch` vector (index_add_ of the
node states and of ones per graph) concatenated with a max pooling via
torch.scatter_reduce(..., "amax", include_self=False); an MLP head and
BCEWithLogitsLoss over 12 binary tasks with missing labels masked out (weight = label >= 0).
128 graphs, 6400 nodes, 25600 directed edges, hidden 128: messages 25600 x 128 (13 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "gnn_mpnn"
TRAIN = True

G, NODES_PER, DEG, FN, FE, H, TASKS = 128, 50, 4, 32, 8, 128, 12


class MPLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.msg_n = nn.Linear(H, H)
        self.msg_e = nn.Linear(FE, H, bias=False)
        self.eps = nn.Parameter(torch.zeros(1))
        self.update = nn.Sequential(nn.Linear(H, 2 * H), nn.ReLU(), nn.Linear(2 * H, H))
        self.bn = nn.BatchNorm1d(H)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, src, dst, edge_attr):
        msg = F.relu(self.msg_n(x[src]) + self.msg_e(edge_attr))
        agg = torch.zeros_like(x).index_add_(0, dst, msg)
        deg = torch.zeros(x.size(0), device=x.device).scatter_add_(0, dst, torch.ones_like(dst, dtype=x.dtype))
        agg = agg / deg.clamp(min=1).unsqueeze(-1)
        h = self.update((1 + self.eps) * x + agg)
        return x + self.drop(F.relu(self.bn(h)))


class GNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(FN, H)
        self.layers = nn.ModuleList([MPLayer() for _ in range(3)])
        self.head = nn.Sequential(nn.Linear(2 * H, H), nn.ReLU(), nn.Dropout(0.2), nn.Linear(H, TASKS))

    def forward(self, x, edge_index, edge_attr, batch, labels):
        src, dst = edge_index[0], edge_index[1]
        h = self.embed(x)
        for layer in self.layers:
            h = layer(h, src, dst, edge_attr)
        n_graphs = labels.size(0)
        counts = torch.zeros(n_graphs, device=h.device).index_add_(0, batch, torch.ones(h.size(0), device=h.device))
        mean_pool = torch.zeros(n_graphs, H, device=h.device).index_add_(0, batch, h) / counts.unsqueeze(-1)
        idx = batch.unsqueeze(-1).expand(-1, H)
        max_pool = torch.zeros(n_graphs, H, device=h.device).scatter_reduce(0, idx, h, "amax", include_self=False)
        logits = self.head(torch.cat([mean_pool, max_pool], dim=-1))
        valid = (labels >= 0).float()
        loss = F.binary_cross_entropy_with_logits(logits, labels.clamp(min=0), weight=valid, reduction="sum")
        return loss / valid.sum(), logits


def make():
    n = G * NODES_PER
    batch = torch.arange(G).repeat_interleave(NODES_PER)
    src = torch.randint(0, NODES_PER, (G, NODES_PER * DEG)) + (torch.arange(G) * NODES_PER)[:, None]
    dst = torch.randint(0, NODES_PER, (G, NODES_PER * DEG)) + (torch.arange(G) * NODES_PER)[:, None]
    edge_index = torch.stack([src.reshape(-1), dst.reshape(-1)])
    x = torch.randn(n, FN)
    edge_attr = torch.randn(edge_index.size(1), FE)
    labels = torch.randint(0, 2, (G, TASKS)).float()
    labels[torch.rand(G, TASKS) < 0.2] = -1.0                # missing labels
    return GNN(), (x, edge_index, edge_attr, batch, labels)
