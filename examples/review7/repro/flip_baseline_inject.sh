#!/bin/bash
# examples/review7 finding 1: a 0.1 % error in conv1.weight's compiled gradient matches when the
# trace holds PyTorch's values (PyTorch's own ReLU flip is the baseline) and is a MISMATCH when it
# does not. Usage: examples/review7/repro/flip_baseline_inject.sh GCDBG_BINARY [WORKDIR]
# The kernel and buffer names (k65, b_buf396) are those of the commit this was written at (3513696/
# 01b6ab9); check them with `gcdbg dump resnet_s1.json --stage kernels | grep -n '] = s;'`.
set -e
BIN=$(realpath "$1"); W=${2:-/tmp/review7_flip}; HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W" && cd "$W"
/usr/bin/python3 "$HERE/../../../exporter/gcdbg_export.py" "$HERE/../resnet18_stem.py" -o resnet_s1.json --seed 1 --name r7_resnet18_stem_s1
/usr/bin/python3 "$HERE/strip_expected.py" resnet_s1.json resnet_s1_nopt.json
for t in resnet_s1 resnet_s1_nopt; do
  rm -rf cache
  INJ_SED='s|b_buf396\[i\] = s;|b_buf396[i] = s * 1.001f;|' CC="$HERE/ccinj.sh" GCDBG_CACHE_DIR="$W/cache" GCDBG_AUTOTUNE=0 \
    "$BIN" run $t.json > $t.txt 2>&1 || true
  echo "== $t"; grep -A2 "grad of conv1.weight" $t.txt; tail -1 $t.txt
done
