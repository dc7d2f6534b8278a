#!/usr/bin/env bash
# The realistic benchmark suite: export bench/models/*.py with PyTorch into bench/out/
# (traces are large and not committed; a model is re-exported when its .py is newer),
# then `gcdbg bench` them against PyTorch eager measured live.
# Usage: bash bench/run.sh [NAME ...] [-- GCDBG-BENCH-FLAGS]     (default: every model)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
PY="${PY:-/usr/bin/python3}"
GCDBG="${GCDBG:-$root/bin/gcdbg}"
export PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1
names=() flags=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; flags=("$@"); break; fi
  names+=("$1"); shift
done
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/models/*.py; do names+=("$(basename "$f" .py)"); done
fi
mkdir -p "$here/out"
traces=()
for n in "${names[@]}"; do
  m="$here/models/$n.py" out="$here/out/$n.json"
  if [ ! -f "$m" ]; then echo "bench: no model $m" >&2; exit 2; fi
  if [ ! -f "$out" ] || [ "$m" -nt "$out" ]; then
    "$PY" "$root/exporter/gcdbg_export.py" "$m" -o "$out" --name "$n" --seed 0 --runs 0 >/dev/null
  fi
  traces+=("$out")
done
cd "$root"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (uptime)"
exec "$GCDBG" bench "${traces[@]}" "${flags[@]}"
