#!/usr/bin/env bash
# Installs what the tests need on Debian, when it is missing (run by `make test`
# and so by CI's .ci/run):
#   gcc + libgomp   generated C kernels are compiled with -fopenmp
#   libopenblas0    GEMM/conv externs found at run time by the generated code
#   tmux            the TUI's end-to-end test drives the real binary in tmux
#   chromium        the HTML report is opened headless and checked
#   pocl, ocl-icd   a real OpenCL device on the CPU for the GPU-style kernels
#   python3-torch   PyTorch 1.13 exports references inside some tests (exporter, conformance)
# Only absent hardware (a CUDA GPU) may make a test skip.
set -euo pipefail
pkgs=(gcc make tmux libopenblas0 libgomp1 chromium pocl-opencl-icd ocl-icd-libopencl1 python3-torch)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing what the tests need: ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "not root and no sudo: install ${missing[*]} with apt-get" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
