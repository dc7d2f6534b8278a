#!/bin/bash
# How lax is the bound on YOLO's first conv gradient? Injects a relative error F into the compiled
# gradient of focus.conv.conv.weight (kernel k251's `b_buf2011[i] = s;`, the last kernel of the
# backward program at the commit reviewed; check with
# `GCDBG_AUTOTUNE=0 gcdbg dump yolo.json --stage kernels | grep -n 'b_buf2011\[i\] = s;'`)
# and runs the verdict. Usage: yolo_lax_inject.sh GCDBG_BINARY [WORKDIR] [FACTORS...]
set -e
BIN=$(realpath "$1"); W=${2:-/tmp/h8/inj}; shift 2 || true
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W" && cd "$W"
[ -f yolo.json ] || /usr/bin/python3 "$HERE/../../../exporter/gcdbg_export.py" "$HERE/../yolo_head.py" -o yolo.json --seed 1
for f in ${@:-1.0002 1.0005 1.001}; do
  rm -rf cache
  INJ_SED="s|b_buf2011\[i\] = s;|b_buf2011[i] = s * ${f}f;|" CC="$HERE/../../review7/repro/ccinj.sh" GCDBG_CACHE_DIR="$W/cache" GCDBG_AUTOTUNE=0 \
    "$BIN" run yolo.json > inj_$f.txt 2>&1 || true
  echo "== x$f"; grep -A1 "grad of focus.conv.conv.weight" inj_$f.txt | cut -c1-260; tail -1 inj_$f.txt | cut -c1-200
done
