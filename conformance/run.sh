#!/usr/bin/env bash
# Conformance on PyTorch's OpInfo samples (docs/conformance.md): export every sample into a
# temporary directory, judge each with gcdbg (eager, then compiled), and fail when a sample of
# conformance/passing.txt that this run judged stops passing, or anything panics.
#
#   conformance/run.sh [--dtypes float32,...] [--ops a,b] [--ids FILE] [--merge] [--update] [--md FILE]
#
#   --merge   merge this run into the committed results store conformance/results.tsv (one line per
#             sample: status, stage, reason, gcdbg commit, date), under a lock, then remake
#             docs/conformance.md (or --md FILE) and conformance/passing.txt from the WHOLE store.
#             The samples this run judged replace theirs; the samples of an OpInfo x dtype it exported
#             in full that it no longer makes are dropped; everything else stays as it was judged.
#             Commit the three files afterwards:
#               conformance/run.sh --dtypes float32,int64,bool --ops a,b --merge
#               git add conformance/results.tsv conformance/passing.txt docs/conformance.md
#               git commit -m "conformance: a, b re-judged" -- conformance/results.tsv conformance/passing.txt docs/conformance.md
#   --update  (with --merge) accept that listed passing samples this run judged no longer pass (drop them from
#             passing.txt); without it they stay listed and the check keeps failing.
#   --md FILE without --merge: the table of this run alone (e.g. /tmp/me.md); nothing else is written.
#   --ids FILE  only these sample ids (OPINFO/DTYPE/INDEX, one a line).
# Environment: PY (default /usr/bin/python3; e.g. a PyTorch 2.6 wrapper: such a run cannot merge into
# the 1.13 store), GO (default go), J (jobs, default 2; J=1 on a shared machine), RESULTS (a JSON file
# for this run's outcomes), GCDBG_CONFORMANCE_CACHE (the kernel cache the runs share, default
# ~/.cache/gcdbg-conformance: entries are keyed by the C code, compiler and flags, so a kernel an
# earlier run built is the same kernel; a re-run of unchanged samples skips gcc, about 3x faster;
# GCDBG_CONFORMANCE_CACHE=fresh uses an empty one; `gcdbg cache clear --dir DIR` empties it),
# GCDBG_AUTOTUNE (default 0 here: the harness judges correctness, so the gcdbg runs take every
# kernel's default alternative instead of timing the candidates per sample; set it to 1 to judge
# the choices autotuning makes).
# The whole script is one function, read before it runs: editing this file while a run is going
# on does not change what that run does.
main() {
set -euo pipefail
cd "$(dirname "$0")/.."
args="$*"
PY=${PY:-/usr/bin/python3}
GO=${GO:-go}
J=${J:-2}
export GCDBG_AUTOTUNE=${GCDBG_AUTOTUNE:-0}
dtypes=float32,float64,float16,bfloat16,int64,int32,int8,uint8,bool
export_args=()
md=""
update=()
merge=()
note=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dtypes) dtypes=$2; shift 2 ;;
    --ops) export_args+=(--ops "$2"); note="only OpInfos $2"; shift 2 ;;
    --ids) export_args+=(--ids "$2"); note="only the samples of $2"; shift 2 ;;
    --update) update=(-update-passing); shift ;;
    --merge) merge=(-store conformance/results.tsv); shift ;;
    --md) md=$2; shift 2 ;;
    *) echo "conformance/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ${#update[@]} -gt 0 ] && [ ${#merge[@]} -eq 0 ]; then
  echo "conformance/run.sh: --update goes with --merge (passing.txt is made from the results store)" >&2; exit 2
fi
if [ ${#merge[@]} -gt 0 ] && [ -z "$md" ]; then
  md=docs/conformance.md
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/gcdbg-conformance.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cache=${GCDBG_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gcdbg-conformance}
if [ "$cache" = fresh ]; then
  cache=$dir/cache
fi
mkdir -p "$(dirname "$cache")" && mkdir -p -m 700 "$cache"
# the commit judged: HEAD, with '+' when the working tree has uncommitted source changes
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- '*.go' '*.c' '*.h' '*.py' '*.txt' go.mod go.sum ':!conformance/passing.txt' 2>/dev/null)" ]; then
  commit="$commit+"
fi
date=$(date -u +%Y-%m-%dT%H:%MZ)
$GO build -o "$dir/gcdbg" ./cmd/gcdbg
torch=$($PY -c 'import torch; print(torch.__version__)')
pids=()
for k in $(seq 1 "$J"); do
  $PY conformance/export_opinfo.py -o "$dir" --dtypes "$dtypes" --shard "$k/$J" "${export_args[@]}" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$dir/gcdbg" ops --coverage > "$dir/coverage.txt"
$GO build -o "$dir/conformance" ./conformance/cmd/conformance
GCDBG_CACHE_DIR="$cache" "$dir/conformance" -dir "$dir" -bin "$dir/gcdbg" -j "$J" -coverage "$dir/coverage.txt" \
  -md "$md" -passing conformance/passing.txt "${update[@]}" "${merge[@]}" -torch "$torch" -dtypes "$dtypes" \
  -note "$note" -command "conformance/run.sh $args" -results "${RESULTS:-/dev/null}" -commit "$commit" -date "$date" \
  -xfail conformance/xfail.tsv
}
main "$@"
