"""Writes narrow_ref.bin, PyTorch's float16/bfloat16 conversions for the C
helpers of render/narrow.go (TestNarrowConversionsMatchPyTorch):
  /usr/bin/python3 render/testdata/narrow_gen.py
Layout (little-endian): uint32 n; n float32 inputs; n uint16 float16 bits of
each (torch .half()); n uint16 bfloat16 bits (torch .bfloat16()); uint32 m;
m uint16 float16 words; m float32 values of each (torch .float()); m uint16
bfloat16 words; m float32 values."""
import os
import struct

import torch

g = torch.Generator().manual_seed(0)
bits = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
        0x477FEFFF, 0x477FF000, 0x477FF001, 0x477FE000, 0x47800000,  # float16's overflow edge
        0x38800000, 0x387FFFFF, 0x33000000, 0x33000001, 0x32FFFFFF, 0x33800000, 0x33C00000,  # subnormal edges
        0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x00000001, 0x00800000, 0x3F808000, 0x3F818000, 0x3F801000,
        0x3F803000, 0x3F800FFF]
# random bit patterns over the whole float32 range, and around float16's range
bits += torch.randint(0, 2**32, (3000,), generator=g, dtype=torch.int64).tolist()
exp = torch.randint(100, 145, (3000,), generator=g, dtype=torch.int64)
mant = torch.randint(0, 2**23, (3000,), generator=g, dtype=torch.int64)
sign = torch.randint(0, 2, (3000,), generator=g, dtype=torch.int64)
bits += (sign * 2**31 + exp * 2**23 + mant).tolist()
# exact ties of float16 (13 dropped bits 0x1000) and bfloat16 (16 dropped bits 0x8000)
for e in range(103, 143):
    for m in (0x1000, 0x3000, 0x2000 | 0x1000, 0x8000, 0x18000, 0x7FF000, 0x7F8000):
        bits.append(e * 2**23 + m)
x = torch.tensor([b - 2**32 if b >= 2**31 else b for b in bits], dtype=torch.int32).view(torch.float32)
h = x.half().view(torch.int16).to(torch.int64) & 0xFFFF
bf = x.bfloat16().view(torch.int16).to(torch.int64) & 0xFFFF
words = list(range(0, 0x10000, 29)) + [0x0000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0x7C01, 0x7E00, 0x8001, 0xFC00, 0xFFFF]
w = torch.tensor([v - 0x10000 if v >= 0x8000 else v for v in words], dtype=torch.int16)
hf = w.view(torch.float16).float()
bff = w.view(torch.bfloat16).float()
out = struct.pack("<I", len(bits)) + x.numpy().tobytes() + struct.pack("<%dH" % len(bits), *h.tolist())
out += struct.pack("<%dH" % len(bits), *bf.tolist())
out += struct.pack("<I", len(words)) + struct.pack("<%dH" % len(words), *words) + hf.numpy().tobytes()
out += struct.pack("<%dH" % len(words), *words) + bff.numpy().tobytes()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "narrow_ref.bin"), "wb") as f:
    f.write(out)
print(len(bits), "floats,", len(words), "words, torch", torch.__version__)
