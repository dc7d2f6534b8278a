# Drop PyTorch's recorded values (expected) from a trace: gcdbg then judges against its own float64 run only, as for graph text or TORCH_TRACE logs.
# usage: strip_expected.py IN.json OUT.json
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["graphs"]:
    g.pop("expected", None)
json.dump(d, open(sys.argv[2], "w"))
