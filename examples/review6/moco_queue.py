"""MoCo v2-style contrastive step with in-place ops and buffers, in training, as a user writes it
from the paper's pseudo-code: a query encoder (Conv-GroupNorm-LeakyReLU(0.1, inplace) ->
Conv-GroupNorm-Hardswish -> Conv-GroupNorm-ELU, global pooling, a 2-layer projection MLP,
F.normalize), a key encoder whose parameters follow the query encoder by momentum inside
torch.no_grad() (`param_k.data.mul_(m).add_(param_q.data, alpha=1 - m)`), a queue buffer of
negatives and a queue_ptr buffer updated in forward (dequeue-and-enqueue), logits
[l_pos | l_neg] / T with cross_entropy against zeros; activations clipped with clamp_ and
torch.where (a soft cap), a masked_fill_ of the in-batch self-similarity diagonal for an extra
SimCLR-style term, and an EMA buffer of the keys' mean (a DINO-style centre).
B32 x 3 x 64^2 per view, queue 128 x 4096: first maps 32 x 32 x 64^2 (16.8 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "moco_queue"
TRAIN = True

B, IMG, DIM, K, M, TAU = 32, 64, 128, 4096, 0.99, 0.2
# MoCo's own `ptr = int(self.queue_ptr)` cannot be traced by torch.fx (README.md, finding 7);
# True reads the pointer from a Python int the training loop advances after the step.
USE_PY_PTR = True
# MoCo's momentum update of the key encoder through `.data` inside forward runs while torch.fx
# traces, outside the graph (README.md, finding 2; refused since): False does it in the
# training step before calling the model, as make() does.
MOMENTUM_IN_FORWARD = False


def encoder():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.GroupNorm(8, 32), nn.LeakyReLU(0.1, inplace=True),
        nn.Conv2d(32, 64, 3, stride=2, padding=1, bias=False), nn.GroupNorm(8, 64), nn.Hardswish(inplace=True),
        nn.Conv2d(64, 128, 3, stride=2, padding=1, bias=False), nn.GroupNorm(16, 128), nn.ELU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(128, 256), nn.ReLU(inplace=True), nn.Linear(256, DIM))


class MoCo(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder_q = encoder()
        self.encoder_k = encoder()
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data.copy_(pq.data)
            pk.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(DIM, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        self.register_buffer("center", torch.zeros(1, DIM))
        self.ptr = 0

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data.mul_(M).add_(pq.data, alpha=1 - M)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        bs = keys.shape[0]
        ptr = self.ptr if USE_PY_PTR else int(self.queue_ptr)
        self.queue[:, ptr:ptr + bs] = keys.T
        ptr = (ptr + bs) % K
        self.queue_ptr[0] = ptr
        if not USE_PY_PTR:
            self.ptr = ptr   # a Python attribute set in forward: holds a torch.fx proxy after tracing

    def forward(self, im_q, im_k):
        q = self.encoder_q(im_q)
        q = torch.where(q > 5, 5 + 0.1 * (q - 5), q)        # soft cap before normalising
        q = F.normalize(q, dim=1)
        with torch.no_grad():
            if MOMENTUM_IN_FORWARD:
                self._momentum_update_key_encoder()
            k = self.encoder_k(im_k)
            k.clamp_(-10, 10)
            k = F.normalize(k - self.center, dim=1)
            self.center.mul_(0.9).add_(k.mean(0, keepdim=True), alpha=0.1)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", q, self.queue.clone().detach())
        logits = torch.cat([l_pos, l_neg], dim=1) / TAU
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        loss = F.cross_entropy(logits, labels)

        sim = q @ q.T / TAU
        eye = torch.eye(q.shape[0], dtype=torch.bool)
        sim.masked_fill_(eye, -1e4)
        loss_inb = torch.logsumexp(sim, dim=1).mean()

        self._dequeue_and_enqueue(k)
        return loss + 0.1 * loss_inb, logits


def make():
    model = MoCo()
    with torch.no_grad():   # as after some training steps: the key encoder lags the query encoder
        for pk in model.encoder_k.parameters():
            pk.add_(0.05 * torch.randn_like(pk))
    if not MOMENTUM_IN_FORWARD:
        model._momentum_update_key_encoder()   # the training step's update, before the forward
    x = torch.randn(B, 3, IMG, IMG)
    im_q = x + 0.1 * torch.randn_like(x)
    im_k = x.flip(3) + 0.1 * torch.randn_like(x)
    return model, (im_q, im_k)
