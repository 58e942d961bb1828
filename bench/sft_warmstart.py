"""Benchmark: the tiny-agent warm start (teacher sessions in pi, then `harness-adapters sft`), and SFT's speed with the
shared prefix run once a step against each session run whole.

    python bench/sft_warmstart.py [--attempts 2] [--steps 60] [--batch 8] [--lr 7e-4] [--probe-steps 2] [--work DIR] [--out runs/bench]

1. `harness-adapters teach` on every training task of the six kinds `tiny-agent` knows (`workspace-narrow`), `--attempts` sessions each (the real pi, through
   safeagents, against the scripted teacher), as its own process: wall time and peak resident memory (the largest
   process of the tree: `RUSAGE_CHILDREN`).
2. `harness-adapters sft` on the recorded sessions, `--steps` steps, as its own process: wall time and peak memory.
3. The speed probe, in this process: the same `--probe-steps` batches of `--batch` sessions, from the same LoRA start,
   once with `sft._shared_step_loss` and once with `sft._step_loss`, alternating step by step so that both see the same
   machine; tokens per second counts every token of the rows (prefix included), so both ways count the same work.

Writes OUT/sft_warmstart.{json,md}; the adapter is left in WORK/adapter. A later run with the same WORK reuses the
sessions, the adapter and their timings (WORK/*.time.json) and measures the probe again: delete WORK to measure all.
"""
import argparse, json, os, random, resource, subprocess, sys, time
from pathlib import Path

import torch


def timed(cmd: list[str], log: Path) -> dict:
    "Run `cmd` to completion with its output in `log`: wall seconds, and the peak RSS of the largest child (MiB)."
    t0 = time.time()
    with open(log, "w") as f: rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc: raise SystemExit(f"{' '.join(cmd)} exited {rc}; see {log}")
    return {"command": " ".join(cmd[2:]), "wall_s": round(time.time() - t0, 1), "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)}


def probe(sessions: Path, steps: int, batch: int, seed: int = 0) -> dict:
    "Tokens per second of the same batches, shared prefix against whole sessions."
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from harness_adapters.config import get_preset
    from harness_adapters.models import fixed_chat_template, tiny_model_dir
    from harness_adapters.sft import _shared_step_loss, _step_loss, read_samples, shared_prefix
    p, w = get_preset("tiny"), tiny_model_dir()
    tok = AutoTokenizer.from_pretrained(w)
    rows = read_samples([sessions], tok, fixed_chat_template(p, w), p)
    rng = random.Random(seed)
    batches = [rng.sample(rows, batch) for _ in range(steps)]
    torch.manual_seed(seed)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(w, dtype=torch.float32),
                           LoraConfig(r=p.lora_rank, lora_alpha=p.lora_alpha, target_modules=p.lora_targets)).train()
    secs, losses = {"shared": 0.0, "whole": 0.0}, {"shared": [], "whole": []}
    bf16 = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())      # as `sft.train_lora` decides
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16): _shared_step_loss(model, batches[0][:2])   # warm-up
    model.zero_grad()
    for i, b in enumerate(batches):
        for name, fn in ((("shared", _shared_step_loss), ("whole", _step_loss))[::1 if i % 2 == 0 else -1]):
            t0 = time.time()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16): loss, _ = fn(model, b)
            secs[name] += time.time() - t0
            model.zero_grad(); losses[name].append(loss)
    tokens = sum(len(s.input_ids) for b in batches for s in b)
    prefix = sum(shared_prefix(b) for b in batches) / len(batches)
    return {"rows": len(rows), "bf16": bf16, "steps": steps, "batch": batch, "tokens": tokens,
            "mean_row_tokens": round(tokens / (steps * batch)), "mean_shared_prefix": round(prefix),
            "tok_per_s_shared": round(tokens / secs["shared"]), "tok_per_s_whole": round(tokens / secs["whole"]),
            "speedup": round(secs["whole"] / secs["shared"], 2),
            "max_loss_diff": max(abs(a - b) for a, b in zip(losses["shared"], losses["whole"]))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attempts", type=int, default=2); ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--batch", type=int, default=8); ap.add_argument("--lr", type=float, default=7e-4)
    ap.add_argument("--probe-steps", type=int, default=2)
    ap.add_argument("--work", default="/var/tmp/sft_warmstart"); ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args()
    work, out = Path(a.work), Path(a.out); work.mkdir(parents=True, exist_ok=True); out.mkdir(parents=True, exist_ok=True)
    exe = [sys.executable, "-m", "harness_adapters.cli"]
    res = {"torch_threads": torch.get_num_threads(), "cpus": os.cpu_count()}
    if not (work / "teach" / "summary.json").exists():
        t = timed(exe + ["teach", "--tasks", "workspace-narrow", "--attempts", str(a.attempts), "--out", str(work / "teach")], work / "teach.log")
        (work / "teach.time.json").write_text(json.dumps(t))
    if (work / "teach.time.json").exists(): res["teach"] = json.loads((work / "teach.time.json").read_text())
    s = json.loads((work / "teach" / "summary.json").read_text())
    res["teach_summary"] = {k: v for k, v in s.items() if k not in ("first_request", "system_prompt")}
    if not (work / "adapter").exists():
        f = timed(exe + ["sft", str(work / "teach" / "sessions"), "--model", "tiny", "--harness", "pi", "--out", str(work / "adapter"),
                         "--steps", str(a.steps), "--batch", str(a.batch), "--lr", str(a.lr), "--policy-from", "tiny-agent"], work / "sft.log")
        (work / "sft.time.json").write_text(json.dumps(f))
    if (work / "sft.time.json").exists(): res["sft"] = json.loads((work / "sft.time.json").read_text())
    res["probe"] = probe(work / "teach" / "sessions", a.probe_steps, a.batch)
    res["args"] = vars(a)
    (out / "sft_warmstart.json").write_text(json.dumps(res, indent=1))
    pr, t, f = res["probe"], res.get("teach"), res.get("sft")
    mem = lambda x: f"{x} MiB" if x else "not measured"
    lines = ["# tiny-agent warm start and SFT speed", "",
             f"`python bench/sft_warmstart.py {' '.join(sys.argv[1:])}` on {res['cpus']} CPUs ({res['torch_threads']} torch threads).", "",
             "| part | wall | peak memory |", "|---|---|---|"]
    if t: lines.append(f"| teacher sessions in pi ({s['sessions']} sessions, {s['solved']} solved) | {t['wall_s'] / 60:.1f} min | {mem(t['peak_rss_mib'])} |")
    if f: lines.append(f"| `harness-adapters sft` ({a.steps} steps of {a.batch} sessions) | {f['wall_s'] / 60:.1f} min | {mem(f['peak_rss_mib'])} |")
    if t and f: lines.append(f"| **whole warm start** | **{(t['wall_s'] + f['wall_s']) / 60:.1f} min** | {mem(max(t['peak_rss_mib'] or 0, f['peak_rss_mib'] or 0))} |")
    lines += ["", f"SFT speed, the same {pr['steps']} batches of {pr['batch']} sessions ({pr['mean_row_tokens']} tokens a session, "
              f"{pr['mean_shared_prefix']} of them the shared prefix): **{pr['tok_per_s_shared']} tokens/s with the prefix run once a step, "
              f"{pr['tok_per_s_whole']} tokens/s with each session whole: {pr['speedup']}x**; largest loss difference {pr['max_loss_diff']:.2e}."]
    (out / "sft_warmstart.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
