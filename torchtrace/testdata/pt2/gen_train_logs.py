"""Make the PyTorch 2 training logs of torchtrace/testdata/pt2 (run with PyTorch 2.6, e.g. in the
chroot ../shared/tools/pytorch2-chroot.sh builds):

    python3 gen_train_logs.py OUTDIR

Each model is compiled with torch.compile (Inductor, the default backend) and trained one SGD step
on a cross-entropy loss with TORCH_TRACE logging, so every log holds Dynamo's captured graph, its
guards, aot_joint_graph, aot_forward_graph, aot_backward_graph and Inductor's code. Beside each
NAME.log it writes:

  NAME-0_0.safetensors           the real tensors the compiled graph [0/0] was called with, named
                                 like its placeholders (parameters lifted to inputs included)
  NAME-0_0.expected.safetensors  PyTorch's numbers for that call: outputs/I (the graph's outputs),
                                 grad_outputs/I (the loss's gradient flowing into output I, as
                                 autograd handed it to the compiled backward) and grads/NAME (the
                                 .grad the training step left on each trainable input)

The grads are those of the real training step, computed by Inductor's compiled backward, before
optimizer.step() changes the parameters.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import torch
import torch._logging
from torch import nn
from torch._inductor.compile_fx import compile_fx


def mlp():
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    return model, torch.randn(8, 16), torch.randint(0, 4, (8,))


def convnet():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(8 * 4 * 4, 10))
    return model, torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,))


class Classifier(nn.Module):
    """The issue's cross-entropy classifier: Linear, Tanh, Linear; the loss is inside the graph."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x, y):
        return nn.functional.cross_entropy(self.fc2(torch.tanh(self.fc1(x))), y)


def classifier():
    return Classifier(), torch.randn(16, 20), torch.randint(0, 5, (16,))


class InputGrad(nn.Module):
    """No parameters: the gradient is taken with respect to an input (x.requires_grad_()); the
    second input (a scale) does not require grad."""

    def forward(self, x, s):
        return (torch.sin(x) * s).sum(dim=1)


def input_grad():
    x = torch.randn(6, 10).requires_grad_()
    return InputGrad(), (x, torch.rand(6, 10) + 0.5), None


MODELS = {"mlp_train": mlp, "convnet_train": convnet, "classifier_train": classifier, "input_grad": input_grad}


def run(name, make, out_dir):
    torch.manual_seed(0)
    model, x, y = make()
    model.train()
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=0.1) if params else None
    calls = []  # (placeholder names, real args, outputs) per compiled graph

    def backend(gm, example_inputs):
        names = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
        compiled = compile_fx(gm, example_inputs)
        rec = {"names": names}
        calls.append(rec)

        def run_compiled(*args):
            outs = compiled(*args)
            if "args" not in rec:
                rec["args"] = list(args)
                rec["outs"] = list(outs) if isinstance(outs, (list, tuple)) else [outs]
                for i, o in enumerate(rec["outs"]):
                    if isinstance(o, torch.Tensor) and o.requires_grad:
                        o.register_hook(lambda g, i=i: rec.setdefault("grad_outputs", {}).__setitem__(i, g.detach().clone()))
            return outs
        return run_compiled

    compiled = torch.compile(model, backend=backend)
    if isinstance(model, Classifier):
        loss = compiled(x, y)
    elif isinstance(model, InputGrad):
        loss = (compiled(*x) ** 2).mean()
    else:
        loss = nn.functional.cross_entropy(compiled(x), y)
    loss.backward()
    # the real inputs, as the compiled graph received them (before the step changes them)
    rec = calls[0]
    inputs = {n: a.detach().clone() for n, a in zip(rec["names"], rec["args"]) if isinstance(a, torch.Tensor)}
    expected = {"outputs/%d" % i: o.detach().clone() for i, o in enumerate(rec["outs"])}
    for i, g in sorted(rec.get("grad_outputs", {}).items()):
        expected["grad_outputs/%d" % i] = g
    for n, a in zip(rec["names"], rec["args"]):
        if isinstance(a, torch.Tensor) and a.grad is not None:
            expected["grads/" + n] = a.grad.detach().clone()
    if opt is not None:
        opt.step()
    write_safetensors(os.path.join(out_dir, name + "-0_0.safetensors"), inputs)
    write_safetensors(os.path.join(out_dir, name + "-0_0.expected.safetensors"), expected)
    print("%s: %d graph(s), loss %.6f, grads for %s" % (name, len(calls), loss.item(),
          ", ".join(k[6:] for k in expected if k.startswith("grads/"))))


DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
          torch.bool: "BOOL", torch.float16: "F16", torch.bfloat16: "BF16", torch.uint8: "U8"}


def write_safetensors(path, tensors):
    """A safetensors file (little-endian, contiguous, header padded to 8 bytes)."""
    header, blobs, off = {}, [], 0
    for k in sorted(tensors):
        t = tensors[k].contiguous().reshape(-1) if tensors[k].dim() == 0 else tensors[k].contiguous()
        shape = list(tensors[k].shape)
        data = t.view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[k] = {"dtype": DTYPES[t.dtype], "shape": shape, "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":  # one model, TORCH_TRACE already set
        run(sys.argv[2], MODELS[sys.argv[2]], sys.argv[3])
        return
    out_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    for name in sys.argv[2:] or MODELS:
        trace_dir = tempfile.mkdtemp()
        env = dict(os.environ, TORCH_TRACE=trace_dir)
        subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name, out_dir], env=env, check=True)
        logs = [f for f in os.listdir(trace_dir) if f.endswith(".log")]
        assert len(logs) == 1, logs
        shutil.copy(os.path.join(trace_dir, logs[0]), os.path.join(out_dir, name + ".log"))
        shutil.rmtree(trace_dir)


if __name__ == "__main__":
    main()
