# Records the environment the exporter runs the model in (for TestExporterTimesInBenchEnvironment):
# make() writes the variables that decide how PyTorch is timed to $GCDBG_TEST_ENV_OUT.
import json
import os

import torch


def make():
    keys = ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT"]
    with open(os.environ["GCDBG_TEST_ENV_OUT"], "w") as f:
        json.dump({k: os.environ.get(k) for k in keys}, f)
    lin = torch.nn.Linear(8, 4)
    return lin, (torch.randn(3, 8),)
