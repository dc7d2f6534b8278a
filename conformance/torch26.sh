#!/usr/bin/env bash
# A PY for conformance/run.sh that runs this repo's Python with PyTorch 2.6, in the Debian trixie
# chroot that ../shared/tools/pytorch2-chroot.sh builds (default /opt/trixie; TORCH26_ROOT moves it):
#   PY=conformance/torch26.sh conformance/run.sh --dtypes float32
# Repo-relative script paths, -o DIR and --ids FILE are mapped into the chroot; the export is
# copied back to DIR. Anything else passes through (e.g. -c 'import torch').
set -euo pipefail
ROOT=${TORCH26_ROOT:-/opt/trixie}
[ -x "$ROOT/usr/bin/python3" ] || { echo "torch26.sh: no chroot at $ROOT (run ../shared/tools/pytorch2-chroot.sh)" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "$ROOT/tmp/gcdbg-py.XXXXXX")
trap 'rm -rf "$work"' EXIT
inner=/tmp/$(basename "$work")
cp -r "$repo/exporter" "$repo/conformance" "$work/"
args=()
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--out) out=$2; mkdir -p "$work/out"; args+=(-o "$inner/out"); shift 2 ;;
    --ids) cp "$2" "$work/ids.txt"; args+=(--ids "$inner/ids.txt"); shift 2 ;;
    *.py) f=$(realpath -m "$1")
          if [ -f "$f" ] && [[ "$f" == "$repo"/* ]]; then args+=("$inner/${f#"$repo"/}"); else args+=("$1"); fi; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
rc=0
chroot "$ROOT" env -u PYTHONPATH HOME=/tmp bash -c 'cd "$0" && exec python3 "$@"' "$inner" "${args[@]}" || rc=$?
if [ -n "$out" ]; then
  mkdir -p "$out"
  cp -r "$work/out/." "$out/"
fi
exit $rc
