"""tx_decoder_lm.py in inference (TRAIN = False): nn.TransformerEncoderLayer in eval mode,
where PyTorch 1.13 may take the fused _transformer_encoder_layer_fwd fast path."""
import importlib.util, os
spec = importlib.util.spec_from_file_location("lm", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tx_decoder_lm.py"))
lm = importlib.util.module_from_spec(spec); spec.loader.exec_module(lm)
NAME = "r9_txlm_eval"
TRAIN = False


def make():
    return lm.make()
