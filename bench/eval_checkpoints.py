"""Benchmark: evaluating K checkpoints as adapters of one vLLM server versus merging each and serving it alone.

    python bench/eval_checkpoints.py [--ks 3 9] [--tasks 4] [--attempts 1] [--workers 8] [--out runs/bench]

Both ways run the same agent sessions: pi on `--tasks` held-out tasks of the tiny family, `--attempts` each, for each of
K checkpoints (random LoRA adapters of the tiny model with trainer cards), through safeagents, scored by the verifiers.
"shared" is the evaluator as it is used: one server, the K checkpoints loaded by name, every session side by side
(`harness_adapters.evaluator.evaluate`, base model left out since the merged way has no use for it). "merged" merges
each checkpoint into full weights (serve_adapters.merge_adapter), starts a server on the merged folder without LoRA,
runs that checkpoint's sessions (`evaluator.run_jobs`, same workers), and stops it, checkpoint after checkpoint. As in
serve_adapters.py, each merged checkpoint is measured once and the K = 3 and 9 totals are sums of the first K, and the
two ways are interleaved so that both see the same machine. Wall time (from start to the last server stopped, merges
included) and peak resident memory of the server process tree are measured in this one run; results go to
OUT/eval_checkpoints.{json,md,png}.
"""
import argparse, json, os, shutil, sys, time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_adapters import PeakRSS, merge_adapter          # noqa: E402  (the serving benchmark's helpers)

from harness_adapters.checkpoints import read_checkpoint, validate_checkpoints
from harness_adapters.evaltables import ResultStore, summary
from harness_adapters.evaluator import EvalConfig, evaluate, eval_tasks, plan_jobs, run_jobs, session_preset
from harness_adapters.models import tiny_model_dir
from harness_adapters.rollouts import serving_stack
from harness_adapters.serving import ServerConfig, VLLMServer, new_adapter


def make_checkpoints(run: Path, base: Path, k: int) -> list:
    "K checkpoints of a fake run: random adapters with cards written by the trainer's own functions."
    from harness_adapters.cards import run_card, write_card
    from harness_adapters.training import RunConfig
    rc = RunConfig(run_dir=str(run), steps=k, checkpoint_every=1)
    card = run_card(rc.session_preset, "pi", "bench", training={**rc.identity(), "checkpoint_every": 1})
    out = []
    for i in range(1, k + 1):
        d = run / "checkpoints" / f"step-{i}"
        if not (d / "card.json").exists():
            new_adapter(d, base, seed=200 + i)
            write_card(d, card, step=i, version=i)
        out.append(read_checkpoint(d, arm=f"step-{i}", run=run.name))
    return out


def shared(ckpts, tasks, attempts, workers, work: Path) -> dict:
    "The evaluator's way: one server, every checkpoint an adapter, all sessions side by side."
    out = work / f"shared-k{len(ckpts)}"
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    with VLLMServer(ServerConfig("tiny", max_loras=len(ckpts))) as srv, PeakRSS(srv.proc.pid) as mem:
        o = evaluate(EvalConfig(checkpoints=[str(c.path) for c in ckpts], include_base=False, tasks=tasks, attempts=attempts,
                                workers=workers, out=str(out)), server=srv, progress=False)
    return {"wall_s": time.perf_counter() - t0, "peak_rss_gib": mem.peak / 2**30, "results": o.results}


def merged_one(ckpt, base, tasks, attempts, workers, preset, work: Path) -> dict:
    "The usual way, for one checkpoint: merge, serve alone, run its sessions, stop."
    t0 = time.perf_counter()
    dest = merge_adapter(ckpt.path, base, work / f"merged-{ckpt.arm}")
    merge_s = time.perf_counter() - t0
    store = ResultStore(work / f"merged-{ckpt.arm}-eval")
    shutil.rmtree(store.out, ignore_errors=True)
    with serving_stack(preset, events=str(store.out / "events.jsonl"), model_path=str(dest), enable_lora=False) as st, \
            PeakRSS(st.server.proc.pid) as mem:
        arm = dict(arm=ckpt.arm, harness=ckpt.harness, served=preset.name, step=ckpt.step, run=ckpt.run)
        results = run_jobs(plan_jobs([arm], tasks, attempts), st.proxy_url, store, preset, workers, progress=False)
    shutil.rmtree(dest, ignore_errors=True)
    return {"wall_s": time.perf_counter() - t0, "merge_s": merge_s, "peak_rss_gib": mem.peak / 2**30, "results": results}


def pass_at_1(results) -> float:
    ok = [r for r in results if not r.errored]
    return round(100 * sum(r.solved for r in ok) / len(ok), 1) if ok else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ks", type=int, nargs="+", default=[3, 9])
    ap.add_argument("--tasks", type=int, default=4, help="held-out tiny tasks per checkpoint")
    ap.add_argument("--attempts", type=int, default=1)
    ap.add_argument("--workers", type=int, default=8, help="sessions in flight, both ways")
    ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args()
    out = Path(a.out); work = out / "eval-work"
    work.mkdir(parents=True, exist_ok=True)
    base = tiny_model_dir()
    ckpts = make_checkpoints(work / "run", base, max(a.ks))
    preset = session_preset("tiny", validate_checkpoints(ckpts, "tiny"))
    tasks = eval_tasks("tiny", limit=a.tasks)
    load_before, t_start = os.getloadavg()[0], time.perf_counter()
    merged, rows = [], []
    for k in sorted(a.ks):                      # interleaved, so both ways see the same machine conditions
        while len(merged) < k:
            merged.append(merged_one(ckpts[len(merged)], base, tasks, a.attempts, a.workers, preset, work))
            print(f"merged checkpoint {len(merged)}: {merged[-1]['wall_s']:.1f} s", flush=True)
        s = shared(ckpts[:k], tasks, a.attempts, a.workers, work)
        m_wall = sum(r["wall_s"] for r in merged[:k])
        m_res = [x for r in merged[:k] for x in r["results"]]
        rows.append({"k": k, "sessions": len(s["results"]), "shared_wall_s": round(s["wall_s"], 1), "merged_wall_s": round(m_wall, 1),
                     "speedup": round(m_wall / s["wall_s"], 2),
                     "shared_peak_rss_gib": round(s["peak_rss_gib"], 2),
                     "merged_peak_rss_gib": round(max(r["peak_rss_gib"] for r in merged[:k]), 2),
                     "memory_ratio": round(s["peak_rss_gib"] / max(r["peak_rss_gib"] for r in merged[:k]), 2),
                     "shared_pass1": pass_at_1(s["results"]), "merged_pass1": pass_at_1(m_res),
                     "errored": sum(r.errored for r in s["results"] + m_res)})
        print(rows[-1], flush=True)
    meta = {"machine": f"{psutil.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB, CPU only",
            "model": "tiny (SmolLM2-135M-Instruct, float32)", "harness": "pi", "tasks": [t.id for t in tasks],
            "attempts": a.attempts, "workers": a.workers, "merge_s_mean": round(sum(r["merge_s"] for r in merged) / len(merged), 1),
            "total_s": round(time.perf_counter() - t_start, 1),
            "load_average_1min_before_after": [round(load_before, 1), round(os.getloadavg()[0], 1)]}
    (out / "eval_checkpoints.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    lines = ["| K | sessions | one server, K adapters (s) | merged, one server each (s) | speed-up | peak RSS shared (GiB) | "
             "peak RSS merged (GiB) | memory shared/merged | pass@1 shared | pass@1 merged | errored |", "|" + "---|" * 11]
    lines += [f"| {r['k']} | {r['sessions']} | {r['shared_wall_s']} | {r['merged_wall_s']} | {r['speedup']}x | {r['shared_peak_rss_gib']} | "
              f"{r['merged_peak_rss_gib']} | {r['memory_ratio']} | {r['shared_pass1']} | {r['merged_pass1']} | {r['errored']} |" for r in rows]
    (out / "eval_checkpoints.md").write_text("\n".join(lines) + f"\n\n{json.dumps(meta)}\n")
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(sorted(a.ks), [r["merged_wall_s"] for r in rows], "o-", label="merged, one server per checkpoint")
    ax.plot(sorted(a.ks), [r["shared_wall_s"] for r in rows], "o-", label="one server, K adapters")
    ax.set(xlabel="checkpoints (K)", ylabel="wall time (s)", title="Evaluating K checkpoints of tiny (pi, CPU)")
    ax.legend(); fig.tight_layout(); fig.savefig(out / "eval_checkpoints.png", dpi=120)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
