# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Benchmark the PyTorch LoRA ops of the CPU backend against the previous
per-token implementation (a copy of the LoRA weights gathered for every token,
then one einsum), on one projection as PunicaWrapperCPU.add_lora_linear runs
it: sgmv_shrink into a float32 buffer, then sgmv_expand_slice into the output.
The V1 CPU model runner always sets is_prefill=True, so decode batches go
through the sgmv ops too.

Usage:
    python benchmarks/kernels/benchmark_cpu_lora_ops.py --threads 1
    python benchmarks/kernels/benchmark_cpu_lora_ops.py --models tiny \\
        --dtype bfloat16 --reps 5 --output cpu_lora_ops.json

Both implementations run on the same tensors and must agree before they are
timed. Each time is the median of --reps observations after --warmup calls;
an observation averages as many calls as fit in --min-time-ms (at least one).
"""

import argparse
import importlib.util
import json
import platform
import statistics
import time
from collections.abc import Callable
from functools import partial

import torch

import vllm.lora.ops.torch_ops as torch_ops

# hidden size, intermediate size, LoRA rank, prefill tokens
MODELS = {
    "tiny": (576, 1536, 32, 1500),  # SmolLM2-135M, gate_proj
    "llama-7b": (4096, 11008, 16, 256),  # Llama-2-7B, gate_proj
}
DECODE_BATCH_SIZES = [8, 64]
# name -> (number of LoRAs, whether base-model requests are in the batch)
MIXES = {"1 lora": (1, False), "3 loras + base": (3, True)}


def per_token_shrink(inputs, lora_a, output, token_lora_indices, scaling):
    """Previous bgmv_shrink: gather one weight copy per token, then einsum."""
    weights = lora_a[token_lora_indices].squeeze(1).to(output.dtype)
    products = torch.einsum("ti,tri->tr", inputs.to(output.dtype), weights)
    output[:, : weights.size(1)] = scaling * products


def per_token_expand_slice(inputs, lora_b, output, token_lora_indices, offset, size):
    """Previous bgmv_expand_slice with add_inputs=True."""
    weights = lora_b[token_lora_indices].squeeze(1).to(output.dtype)
    products = torch.einsum("tr,tor->to", inputs.to(output.dtype), weights)
    output[:, offset : offset + size] += products


def make_lora_indices(batch: str, num_tokens: int, mix: str) -> torch.Tensor:
    """LoRA slot per token. Prefill: one request per LoRA (and one for the base
    model), tokens split evenly. Decode: one token per request, cycling through
    the base model and the LoRAs so that no two neighbours share one."""
    num_loras, with_base = MIXES[mix]
    slots = ([-1] if with_base else []) + list(range(num_loras))
    if batch == "decode":
        return torch.tensor([slots[i % len(slots)] for i in range(num_tokens)])
    lengths = [len(part) for part in torch.arange(num_tokens).tensor_split(len(slots))]
    return torch.repeat_interleave(torch.tensor(slots), torch.tensor(lengths))


def sgmv_metadata(token_lora_indices: torch.Tensor) -> tuple:
    """Segment metadata as PunicaWrapperBase builds it (runs of one LoRA)."""
    lora_indices, seq_lens = torch.unique_consecutive(
        token_lora_indices, return_counts=True
    )
    seq_start_locs = torch.cumsum(seq_lens, dim=0) - seq_lens
    return (
        seq_start_locs,
        seq_lens,
        lora_indices,
        len(seq_lens),
        int(seq_lens.max()),
        len(token_lora_indices),
    )


# perf_counter: wall time. process_time: CPU time of this process, steadier on
# a machine shared with other work (with --threads 1 it is the op's own time).
TIMERS = {"perf_counter": time.perf_counter, "process_time": time.process_time}


def median_ms(fn: Callable[[], None], args: argparse.Namespace) -> float:
    """Median over --reps observations of the mean time per call; an
    observation repeats the call until --min-time-ms has passed."""
    timer = TIMERS[args.timer]
    for _ in range(args.warmup):
        fn()
    times = []
    for _ in range(args.reps):
        calls, start = 0, timer()
        while True:
            fn()
            calls += 1
            elapsed = timer() - start
            if elapsed >= args.min_time_ms / 1e3:
                break
        times.append(elapsed / calls)
    return 1e3 * statistics.median(times)


def bench_case(ops, model, dtype, batch, num_tokens, mix, max_loras, args):
    hidden, intermediate, rank, _ = MODELS[model]
    g = torch.Generator().manual_seed(0)
    token_lora_indices = make_lora_indices(batch, num_tokens, mix)
    meta = sgmv_metadata(token_lora_indices)
    x = torch.randn(num_tokens, hidden, generator=g).to(dtype)
    # Stacked as the LoRA layers keep them; the last slot is free (zeros) so
    # that both implementations give base-model tokens a zero LoRA.
    lora_a = torch.randn(max_loras, 1, rank, hidden, generator=g) / hidden**0.5
    lora_b = torch.randn(max_loras, 1, intermediate, rank, generator=g) / rank**0.5
    lora_a[-1], lora_b[-1] = 0, 0
    lora_a, lora_b = lora_a.to(dtype), lora_b.to(dtype)
    base_weight = (torch.randn(intermediate, hidden, generator=g) / hidden**0.5).to(
        dtype
    )
    y = torch.randn(num_tokens, intermediate, generator=g).to(dtype)

    def new_shrink(buffer):
        ops.sgmv_shrink(x, lora_a, buffer, *meta, 1.0)

    def new_expand(buffer, out):
        ops.sgmv_expand_slice(buffer, lora_b, out, *meta, 0, intermediate, True)

    def old_shrink(buffer):
        # The previous sgmv_* expanded the segments to token indices first.
        indices = torch.repeat_interleave(meta[2], meta[1])
        per_token_shrink(x, lora_a, buffer, indices, 1.0)

    def old_expand(buffer, out):
        indices = torch.repeat_interleave(meta[2], meta[1])
        per_token_expand_slice(buffer, lora_b, out, indices, 0, intermediate)

    results = {}
    for name, shrink, expand in (
        ("old", old_shrink, old_expand),
        ("new", new_shrink, new_expand),
    ):
        buffer = torch.zeros(num_tokens, rank)
        out = y.clone()
        shrink(buffer)
        expand(buffer, out)
        results[name] = out.clone()
        results[f"{name}_shrink_ms"] = median_ms(partial(shrink, buffer), args)
        results[f"{name}_expand_ms"] = median_ms(partial(expand, buffer, out), args)
    tol = 1e-4 if dtype == torch.float32 else 3e-2
    torch.testing.assert_close(results["new"], results["old"], atol=tol, rtol=tol)
    base_ms = median_ms(partial(torch.nn.functional.linear, x, base_weight), args)
    return {
        "model": model,
        "batch": batch,
        "tokens": num_tokens,
        "mix": mix,
        **{k: v for k, v in results.items() if k.endswith("_ms")},
        "base_linear_ms": base_ms,
    }


def load_ops(path: str | None):
    if path is None:
        return torch_ops
    spec = importlib.util.spec_from_file_location("lora_ops_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def print_table(rows: list[dict]) -> None:
    print(
        "| model | batch | tokens | LoRAs | old shrink | new shrink | old expand "
        "| new expand | speed-up | base linear |"
    )
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        old = r["old_shrink_ms"] + r["old_expand_ms"]
        new = r["new_shrink_ms"] + r["new_expand_ms"]
        print(
            f"| {r['model']} | {r['batch']} | {r['tokens']} | {r['mix']} "
            f"| {r['old_shrink_ms']:.3g} | {r['new_shrink_ms']:.3g} "
            f"| {r['old_expand_ms']:.3g} | {r['new_expand_ms']:.3g} "
            f"| {old / new:.1f}x | {r['base_linear_ms']:.3g} |"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--models", nargs="+", choices=list(MODELS), default=list(MODELS)
    )
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--max-loras", type=int, default=4, help="LoRA slots (the last stays free)"
    )
    parser.add_argument(
        "--prefill-tokens",
        type=int,
        help="Override the per-model number of prefill tokens",
    )
    parser.add_argument(
        "--decode-batch-sizes", type=int, nargs="+", default=DECODE_BATCH_SIZES
    )
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--timer", choices=list(TIMERS), default="perf_counter")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument(
        "--min-time-ms",
        type=float,
        default=20.0,
        help="Shortest observation; fast calls are repeated and averaged",
    )
    parser.add_argument(
        "--lora-ops-file",
        help="Time the ops of this lora_ops.py (e.g. a patched copy) instead of "
        "the installed vllm.lora.ops.torch_ops",
    )
    parser.add_argument("--output", help="Save the settings and timings as JSON")
    args = parser.parse_args()
    if args.max_loras < 4:
        parser.error("--max-loras must be at least 4 (3 LoRAs and a free slot)")

    torch.set_num_threads(args.threads)
    ops = load_ops(args.lora_ops_file)
    dtype = getattr(torch, args.dtype)
    print(
        f"torch {torch.__version__}, {args.threads} thread(s), {platform.machine()}, "
        f"{args.dtype}, ops from {ops.__file__}; times in ms ({args.timer}), "
        f"median of {args.reps}"
    )

    rows = []
    for model in args.models:
        prefill_tokens = args.prefill_tokens or MODELS[model][3]
        cases = [("prefill", prefill_tokens)]
        cases += [("decode", n) for n in args.decode_batch_sizes]
        for batch, num_tokens in cases:
            for mix in MIXES:
                rows.append(
                    bench_case(
                        ops, model, dtype, batch, num_tokens, mix, args.max_loras, args
                    )
                )
    print_table(rows)
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"settings": vars(args), "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
