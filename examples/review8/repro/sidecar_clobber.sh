#!/bin/sh
# Exporting the same model twice (two seeds, two -o files, one directory) silently corrupts the
# first trace: the sidecar is named after the trace NAME (r8_sidecar_model.safetensors), not after
# -o, so the second export overwrites the first one's large tensors. `gcdbg run` of the first trace
# then reads seed 1's weights/inputs/expected values from the sidecar beside seed 0's inline ones
# and reports MISMATCH "reference != PyTorch" with no hint that the files do not belong together.
set -e
HERE=$(dirname "$(readlink -f "$0")")
D=${D:-/tmp/h8/sidecar}
G=${GCDBG:-/tmp/h8/gcdbg}
mkdir -p "$D" && cd "$D"
/usr/bin/python3 /work/main/exporter/gcdbg_export.py "$HERE/sidecar_model.py" -o s0.json --seed 0
"$G" run s0.json | tail -1                      # match
/usr/bin/python3 /work/main/exporter/gcdbg_export.py "$HERE/sidecar_model.py" -o s1.json --seed 1
ls -l "$D"                                       # one r8_sidecar_model.safetensors for both
"$G" run s0.json | tail -1 || true              # MISMATCH: s0.json now reads s1's sidecar
