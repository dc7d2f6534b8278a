# y = sin(x), z = cos(y): two pointwise ops Inductor fuses into one kernel.
def forward(self, x: "f32[64, 128]"):
    sin: "f32[64, 128]" = torch.sin(x)
    cos: "f32[64, 128]" = torch.cos(sin)
    return (sin, cos)
