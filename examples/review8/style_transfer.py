"""Fast neural style transfer (Johnson et al.) in training, written after pytorch/examples'
fast_neural_style (transformer_net.py, neural_style.py): TransformerNet with ConvLayer =
ReflectionPad2d + Conv2d, InstanceNorm2d(affine=True), two strided downsampling convs, 5 residual
blocks, one ConvTranspose2d(stride 2) and one UpsampleConvLayer (F.interpolate nearest + reflection
pad + conv) upsampling, a 9x9 output conv and a tanh output mapped to [0, 1]; the loss network is a
small frozen VGG-like feature extractor (requires_grad_(False)) with ImageNet normalisation
(normalize_batch), content loss = MSE on relu2 features, style loss = sum over 3 layers of MSE
between Gram matrices (features.bmm(features.transpose(1, 2)) / (ch * h * w)) of the output and of
the style image (its grams under torch.no_grad), content_weight 1e5, style_weight 1e10.
B4 x 3 x 128 x 128: the first maps 4 x 32 x 128 x 128 (8.4 MB), residual blocks 4 x 128 x 32 x 32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_style_transfer"
TRAIN = True
B, IMG = 4, 128


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = nn.ReflectionPad2d(reflection_padding)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        return out + residual


class UpsampleConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = F.interpolate(x_in, mode="nearest", scale_factor=self.upsample)
        return self.conv2d(self.reflection_pad(x_in))


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvLayer(3, 32, kernel_size=9, stride=1)
        self.in1 = nn.InstanceNorm2d(32, affine=True)
        self.conv2 = ConvLayer(32, 64, kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(64, affine=True)
        self.conv3 = ConvLayer(64, 128, kernel_size=3, stride=2)
        self.in3 = nn.InstanceNorm2d(128, affine=True)
        self.res = nn.Sequential(*[ResidualBlock(128) for _ in range(5)])
        self.deconv1 = nn.ConvTranspose2d(128, 64, kernel_size=3, stride=2, padding=1, output_padding=1)
        self.in4 = nn.InstanceNorm2d(64, affine=True)
        self.deconv2 = UpsampleConvLayer(64, 32, kernel_size=3, stride=1, upsample=2)
        self.in5 = nn.InstanceNorm2d(32, affine=True)
        self.deconv3 = ConvLayer(32, 3, kernel_size=9, stride=1)
        self.relu = nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        y = self.deconv3(y)
        return (torch.tanh(y) + 1) / 2


class LossNet(nn.Module):
    """A VGG-like stand-in for the frozen vgg16 (relu1_2, relu2_2, relu3_3)."""

    def __init__(self):
        super().__init__()
        self.slice1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.slice2 = nn.Sequential(nn.MaxPool2d(2, 2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                                    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.slice3 = nn.Sequential(nn.MaxPool2d(2, 2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                                    nn.Conv2d(64, 64, 3, padding=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        h1 = self.slice1(x)
        h2 = self.slice2(h1)
        h3 = self.slice3(h2)
        return h1, h2, h3


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # new_tensor was refused by gcdbg run before 7d197ce (README finding 4; repro/new_tensor.py)
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    return (batch - mean) / std


class StyleStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = TransformerNet()
        self.vgg = LossNet()
        self.content_weight, self.style_weight = 1e5, 1e10

    def forward(self, x, style):
        y = self.transformer(x)
        features_y = self.vgg(normalize_batch(y))
        with torch.no_grad():
            features_x = self.vgg(normalize_batch(x))
            gram_style = [gram_matrix(f) for f in self.vgg(normalize_batch(style))]
        content_loss = self.content_weight * F.mse_loss(features_y[1], features_x[1])
        style_loss = 0.
        for ft_y, gm_s in zip(features_y, gram_style):
            gm_y = gram_matrix(ft_y)
            style_loss = style_loss + F.mse_loss(gm_y, gm_s[:B, :, :])
        style_loss = style_loss * self.style_weight
        return content_loss + style_loss


def make():
    x = torch.rand(B, 3, IMG, IMG)
    style = torch.rand(1, 3, IMG, IMG).expand(B, 3, IMG, IMG).contiguous()
    return StyleStep().train(), (x, style)
