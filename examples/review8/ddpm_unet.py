"""A DDPM noise-prediction training step on a small U-Net slice, written after the DDPM / guided-
diffusion code: q_sample inside forward (alphas_cumprod buffer gathered at the batch's timesteps,
torch.randn_like noise), a sinusoidal timestep embedding (exp, arange, sin, cos, cat) + MLP (Linear,
SiLU, Linear), ResBlocks (GroupNorm(32) + SiLU + conv3x3, the time embedding projected and added as
[:, :, None, None], GroupNorm + SiLU + Dropout(0.1) + conv3x3, 1x1 skip when channels change),
a spatial self-attention block at 16x16 (GroupNorm, 1x1 qkv conv, bmm, softmax, 1x1 proj, residual),
a strided-conv downsample and an AvgPool2d downsample, F.interpolate(scale_factor=2, mode="nearest")
+ conv upsampling with skip concatenation, and MSE between predicted and true noise.
B8 x 3 x 32 x 32 (CIFAR-sized), base 64 channels: 32x32 maps 8 x 64 x 32 x 32 (2 MB), the last
cat 8 x 128 x 32 x 32 (4 MB), attention 8 x 256 x 256 (2 MB)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_ddpm_unet"
TRAIN = True
B, IMG, CH, TDIM, STEPS = 8, 32, 64, 256, 1000


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    return embedding


def norm(ch):
    return nn.GroupNorm(32, ch)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim, dropout=0.1):
        super().__init__()
        self.in_layers = nn.Sequential(norm(cin), nn.SiLU(), nn.Conv2d(cin, cout, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(tdim, cout))
        self.out_layers = nn.Sequential(norm(cout), nn.SiLU(), nn.Dropout(dropout), nn.Conv2d(cout, cout, 3, padding=1))
        self.skip = nn.Identity() if cin == cout else nn.Conv2d(cin, cout, 1)

    def forward(self, x, emb):
        h = self.in_layers(x)
        # .type(h.dtype) was refused by gcdbg run before 7d197ce (README finding 4; repro/type_method.py)
        emb_out = self.emb_layers(emb).type(h.dtype)
        # guided-diffusion's `while len(emb_out.shape) < len(h.shape): emb_out = emb_out[..., None]`
        # does not trace under torch.fx ('len' is not supported in symbolic tracing)
        emb_out = emb_out[:, :, None, None]
        h = h + emb_out
        h = self.out_layers(h)
        return self.skip(x) + h


class AttentionBlock(nn.Module):
    def __init__(self, ch, heads=1):
        super().__init__()
        self.heads = heads
        self.norm = norm(ch)
        self.qkv = nn.Conv1d(ch, ch * 3, 1)
        self.proj_out = nn.Conv1d(ch, ch, 1)

    def forward(self, x):
        # guided-diffusion writes `b, c, *spatial = x.shape` ... `.reshape(b, c, *spatial)`; the star
        # unpacking is refused by the tracer ("Proxy object cannot be iterated")
        b, c, hh, ww = x.shape
        x = x.reshape(b, c, -1)
        qkv = self.qkv(self.norm(x))
        bs, width, length = qkv.shape
        ch = width // (3 * self.heads)
        q, k, v = qkv.reshape(bs * self.heads, ch * 3, length).split(ch, dim=1)
        scale = 1 / math.sqrt(math.sqrt(ch))
        weight = torch.einsum("bct,bcs->bts", q * scale, k * scale)
        weight = torch.softmax(weight.float(), dim=-1).type(weight.dtype)
        a = torch.einsum("bts,bcs->bct", weight, v)
        h = self.proj_out(a.reshape(bs, -1, length))
        return (x + h).reshape(b, c, hh, ww)


class Downsample(nn.Module):
    def __init__(self, ch, use_conv):
        super().__init__()
        self.op = nn.Conv2d(ch, ch, 3, stride=2, padding=1) if use_conv else nn.AvgPool2d(2, 2)

    def forward(self, x):
        return self.op(x)


class Upsample(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x):
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        return self.conv(x)


class UNetSlice(nn.Module):
    def __init__(self):
        super().__init__()
        self.time_embed = nn.Sequential(nn.Linear(CH, TDIM), nn.SiLU(), nn.Linear(TDIM, TDIM))
        self.inp = nn.Conv2d(3, CH, 3, padding=1)
        self.down_res = ResBlock(CH, CH, TDIM)
        self.down1 = Downsample(CH, use_conv=True)             # 32 -> 16
        self.mid_res1 = ResBlock(CH, 2 * CH, TDIM)
        self.mid_attn = AttentionBlock(2 * CH, heads=2)
        self.mid_res2 = ResBlock(2 * CH, 2 * CH, TDIM)
        self.down2 = Downsample(2 * CH, use_conv=False)        # 16 -> 8 (AvgPool)
        self.bottom = ResBlock(2 * CH, 2 * CH, TDIM)
        self.up2 = Upsample(2 * CH)                             # 8 -> 16
        self.up_res2 = ResBlock(4 * CH, 2 * CH, TDIM)
        self.up1 = Upsample(2 * CH)                             # 16 -> 32
        self.up_res1 = ResBlock(3 * CH, CH, TDIM)
        self.out = nn.Sequential(norm(CH), nn.SiLU(), nn.Conv2d(CH, 3, 3, padding=1))
        betas = torch.linspace(1e-4, 0.02, STEPS, dtype=torch.float64)
        self.register_buffer("sqrt_alphas_cumprod", torch.cumprod(1 - betas, 0).sqrt().float())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1 - torch.cumprod(1 - betas, 0)).sqrt().float())

    def predict(self, x, t):
        emb = self.time_embed(timestep_embedding(t, CH))
        h0 = self.down_res(self.inp(x), emb)                  # 64 @ 32
        h1 = self.mid_res1(self.down1(h0), emb)               # 128 @ 16
        h1 = self.mid_res2(self.mid_attn(h1), emb)
        h2 = self.bottom(self.down2(h1), emb)                  # 128 @ 8
        u = self.up2(h2)                                       # 128 @ 16
        u = self.up_res2(torch.cat([u, h1], dim=1), emb)       # 256 -> 128 @ 16
        u = self.up1(u)                                        # 128 @ 32
        u = self.up_res1(torch.cat([u, h0], dim=1), emb)       # 192 -> 64 @ 32
        return self.out(u)

    def forward(self, x0, t):
        noise = torch.randn_like(x0)
        a = self.sqrt_alphas_cumprod[t].view(-1, 1, 1, 1)
        s = self.sqrt_one_minus_alphas_cumprod[t].view(-1, 1, 1, 1)
        x_t = a * x0 + s * noise
        return F.mse_loss(self.predict(x_t, t), noise)


def make():
    x0 = torch.rand(B, 3, IMG, IMG) * 2 - 1
    t = torch.randint(0, STEPS, (B,))
    return UNetSlice().train(), (x0, t)
