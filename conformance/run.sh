#!/usr/bin/env bash
# Conformance on PyTorch's OpInfo samples (docs/conformance.md): export every sample into a
# temporary directory, judge each with gcdbg (eager, then compiled), write the table and fail
# when a sample of conformance/passing.txt stops passing or anything panics.
#   conformance/run.sh [--dtypes float32,...] [--ops a,b] [--ids FILE] [--update] [--md FILE]
# Environment: PY (default /usr/bin/python3; e.g. a PyTorch 2.6 wrapper), GO (default go), J (jobs, 2).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-/usr/bin/python3}
GO=${GO:-go}
J=${J:-2}
dtypes=float32,float64,float16,bfloat16,int64,int32,int8,uint8,bool
export_args=()
md=docs/conformance.md
update=()
note=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dtypes) dtypes=$2; shift 2 ;;
    --ops) export_args+=(--ops "$2"); note="only OpInfos $2"; shift 2 ;;
    --ids) export_args+=(--ids "$2"); note="only the samples of $2"; shift 2 ;;
    --update) update=(-update-passing); shift ;;
    --md) md=$2; shift 2 ;;
    *) echo "conformance/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/gcdbg-conformance.XXXXXX")
trap 'rm -rf "$dir"' EXIT
$GO build -o "$dir/gcdbg" ./cmd/gcdbg
torch=$($PY -c 'import torch; print(torch.__version__)')
pids=()
for k in $(seq 1 "$J"); do
  $PY conformance/export_opinfo.py -o "$dir" --dtypes "$dtypes" --shard "$k/$J" "${export_args[@]}" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$dir/gcdbg" ops --coverage > "$dir/coverage.txt"
GCDBG_CACHE_DIR="$dir/cache" $GO run ./conformance/cmd/conformance -dir "$dir" -bin "$dir/gcdbg" -j "$J" -coverage "$dir/coverage.txt" \
  -md "$md" -passing conformance/passing.txt "${update[@]}" -torch "$torch" -dtypes "$dtypes" \
  -note "$note" -command "conformance/run.sh $*" -results "${RESULTS:-/dev/null}"
