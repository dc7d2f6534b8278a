"""Is mbv2_ir_stack --seed 1's compiled gradient in features.8.conv.0 channel 126 one ReLU6
element decided the other way? Rebuild the model at the seed in float64, replay the recorded
classifier dropout mask from the trace's sidecar, run forward+backward once as is and once with
the ReLU6 input of features.8.conv.0.2 nearest 0 in channel 126 decided the other way, and print the gradient changes next to gcdbg's.
usage: mbv2_flip_check.py TRACE.json SEED"""
import importlib.util, json, os, sys
import torch
import torch.nn as nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("m", os.path.join(here, "..", "mbv2_ir_stack.py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
trace, seed = sys.argv[1], int(sys.argv[2])
tr = json.load(open(trace))


def load_safetensors(path, key):  # the format by hand (no safetensors package here)
    import struct
    with open(path, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        hdr = json.loads(fh.read(n))
        e = hdr[key]
        fh.seek(8 + n + e["data_offsets"][0])
        raw = fh.read(e["data_offsets"][1] - e["data_offsets"][0])
    assert e["dtype"] == "BOOL"
    return torch.tensor(list(raw), dtype=torch.bool).view(e["shape"])


r = tr["graphs"][0]["expected"]["random"]["classifier_0"]
mask = load_safetensors(os.path.join(os.path.dirname(trace), r["file"]), r["key"]).double()
torch.manual_seed(seed)
model, (x, y) = m.make()
model = model.double()
x = x.double()
CH = 126


def run(flip):
    model.zero_grad()
    h = x
    for i, f in enumerate(model.features):
        if i != 8:
            h = f(h)
            continue
        z = f.conv[0][1](f.conv[0][0](h))
        flat = z[:, CH].reshape(-1)
        idx = flat.abs().argmin().item()
        val = flat[idx].item()
        o = F.hardtanh(z, 0.0, 6.0)
        if flip:  # decide clamp's z > 0 the other way at that one element
            sel = torch.zeros(z[:, CH].numel(), dtype=torch.bool)
            sel[idx] = True
            full = torch.zeros_like(z, dtype=torch.bool)
            full[:, CH] = sel.view(z[:, CH].shape)
            o = torch.where(full, z * 0 if val > 0 else z, o)
        h = h + f.conv[3](f.conv[2](f.conv[1](o)))
    p = F.adaptive_avg_pool2d(h, 1).flatten(1)
    p = p * mask / 0.8
    loss = F.cross_entropy(model.classifier[1](p), y)
    loss.backward()
    return {n: q.grad.clone() for n, q in model.named_parameters()}, val


g0, v = run(False)
g1, _ = run(True)
print("ReLU6 input nearest 0 in features.8.conv.0 channel %d: %.3g" % (CH, v))
for n in ("features.8.conv.0.1.bias", "features.8.conv.0.0.weight", "features.7.conv.1.1.bias"):
    d = (g1[n] - g0[n]).abs()
    i = d.reshape(-1).argmax().item()
    print("%s: flip moves element %d by %.4g (%.6g -> %.6g)" % (n, i, (g1[n] - g0[n]).reshape(-1)[i].item(),
          g0[n].reshape(-1)[i].item(), g1[n].reshape(-1)[i].item()))
