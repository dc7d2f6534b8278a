"""Rebuild mbv2_ir_stack.py at a seed (as the exporter does: torch.manual_seed(seed); make()),
run the features in float64 in training mode, and print, for the named BatchNorm2d channels,
the batch mean/var of the BN input (|mean|/std shows cancellation in a one-pass E[x^2]-E[x]^2
variance), and the ReLU6 inputs nearest 0 and 6 (flip candidates).
usage: mbv2_bn_probe.py SEED MODULE:CH [MODULE:CH ...]"""
import importlib.util, os, sys
import torch

spec = importlib.util.spec_from_file_location("m", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mbv2_ir_stack.py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
torch.manual_seed(int(sys.argv[1]))
model, (x, y) = m.make()
model = model.double()
want = [a.split(":") for a in sys.argv[2:]]
store = {}
mods = dict(model.named_modules())
for name, ch in want:
    bn = mods[name]
    def hook(mod, inp, out, name=name):
        store[name] = (inp[0].detach().clone(), out.detach().clone())  # clone: ReLU6(inplace) follows
    bn.register_forward_hook(hook)
with torch.no_grad():
    model.features(x.double())
for name, ch in want:
    ch = int(ch)
    i, o = store[name]
    c = i[:, ch].reshape(-1)
    mean, var = c.mean().item(), c.var(unbiased=False).item()
    oc = o[:, ch].reshape(-1)
    d0 = oc.abs().sort().values[:3].tolist()
    d6 = (oc - 6).abs().sort().values[:3].tolist()
    print("%s ch %d: n=%d mean %.6g var %.6g |mean|/std %.3g; BN out nearest 0: %s nearest 6: %s; E[x^2]-E[x]^2 in float32: %.6g" % (
        name, ch, c.numel(), mean, var, abs(mean) / var ** 0.5, ["%.3g" % v for v in d0], ["%.3g" % v for v in d6],
        ((c.float() ** 2).mean() - c.float().mean() ** 2).item()))
