#!/usr/bin/env bash
# Regenerates the cubin-check test inputs from tiny.cu with the pinned nvcc (13.0.88).
# Usage: NVCC=/path/to/nvcc ./gen.sh   (default: the workspace .venv nvcc)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
NVCC="${NVCC:-$(ls ../../../../.venv/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc | head -n1)}"
# PTX text (must be rejected: ContainsPtx).
"$NVCC" -ptx -gencode arch=compute_90,code=compute_90 -o tiny.ptx tiny.cu
# Fatbin with sm_90 SASS and compute_90 PTX (must be rejected: IsFatbin).
"$NVCC" -fatbin -gencode 'arch=compute_90,code=[sm_90,compute_90]' -o tiny.fatbin tiny.cu
# Debug cubin: -G embeds the PTX in section .nv_debug_ptx_txt (must be rejected: ContainsPtx).
"$NVCC" -cubin -G -gencode arch=compute_90,code=sm_90 -o tiny_debug.sm_90.cubin tiny.cu
# x86-64 host object with the fatbin in .nv_fatbin / .nvFatBinSegment (must be rejected: IsFatbin).
"$NVCC" -c -gencode 'arch=compute_90,code=[sm_90,compute_90]' -o tiny_host.o tiny.cu
# A plain SASS cubin (accepted).
"$NVCC" -cubin -gencode arch=compute_90,code=sm_90 -O3 -Xptxas -O3 -o tiny.sm_90.cubin tiny.cu
