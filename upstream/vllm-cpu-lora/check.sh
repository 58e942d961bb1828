#!/usr/bin/env bash
# Check this folder without touching the installed vLLM: apply lora_ops.patch to
# a temporary copy of the installed vllm/lora/ops/torch_ops/lora_ops.py, run
# test_cpu_lora_ops.py against that copy (conftest.py loads it from
# VLLM_LORA_OPS_FILE), then a short run of the benchmark. One thread, lowest
# priority. Extra arguments go to the benchmark (e.g. --models tiny --reps 5).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
installed="$(python -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("vllm").origin).parent / "lora/ops/torch_ops/lora_ops.py")')"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/vllm/lora/ops/torch_ops"
cp "$installed" "$tmp/vllm/lora/ops/torch_ops/lora_ops.py"
patch -d "$tmp" -p1 --no-backup-if-mismatch < "$here/lora_ops.patch"

export OMP_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
export VLLM_LORA_OPS_FILE="$tmp/vllm/lora/ops/torch_ops/lora_ops.py"
nice -n 19 python -m pytest -p no:cacheprovider "$here/test_cpu_lora_ops.py"
nice -n 19 python "$here/benchmark_cpu_lora_ops.py" --threads 1 --reps 3 \
    --timer process_time --lora-ops-file "$VLLM_LORA_OPS_FILE" "$@"
