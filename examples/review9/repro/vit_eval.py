"""vit_tiny_ls.py in inference (TRAIN = False): model.eval(), where PyTorch 1.13's
nn.MultiheadAttention may take its fused fast path."""
import importlib.util, os
spec = importlib.util.spec_from_file_location("vit", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vit_tiny_ls.py"))
vit = importlib.util.module_from_spec(spec); spec.loader.exec_module(vit)
NAME = "r9_vit_eval"
TRAIN = False


def make():
    model, (x, y) = vit.make()
    return model, (x, y)
