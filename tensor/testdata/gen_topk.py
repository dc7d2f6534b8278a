#!/usr/bin/env python3
# Generates tensor/testdata/topk_ties.json (TestTopkTiesPyTorch) with PyTorch 1.13 (CPU): rows with many equal values
# (and NaN), torch.topk's indices for several k, largest and sorted.
import json
import os

import torch
torch.manual_seed(7)
torch.set_num_threads(1)
cases = []
for n in (1, 2, 3, 4, 5, 7, 10, 16, 17, 18, 20, 33, 64, 65, 130, 257):
    for kind in (("few", "nan", "equal", "sorted") if n < 64 else ("few", "nan")):
        if kind == "few":
            row = torch.randint(0, 4, (n,)).float()
        elif kind == "nan":
            row = torch.randint(0, 3, (n,)).float()
            row[torch.rand(n) < 0.2] = float("nan")
        elif kind == "equal":
            row = torch.zeros(n)
        else:
            row = torch.sort(torch.randint(0, 5, (n,)).float())[0]
        for k in sorted({1, 2, 3, n // 2, n - 1, n} - {-1}):
            if k < 0 or k > n:
                continue
            for largest in (True, False):
                for srt in (True, False):
                    _, ix = torch.topk(row, k, largest=largest, sorted=srt)
                    cases.append({"row": [None if v != v else v for v in row.tolist()], "k": k,
                                  "largest": largest, "sorted": srt, "indices": ix.tolist()})
json.dump({"torch": torch.__version__, "cases": cases}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "topk_ties.json"), "w"))
print(len(cases))
