"""Check: does the way a session reaches the base model change its solve rate?

    python bench/base_paths.py [--tasks 8] [--samples 8] [--out runs/bench]

Measure, training and evaluation all run pi sessions of the tiny model through safeagents, but each reaches the base
model a little differently: `measure` asks the base by name with the preset's 512 output tokens, eight sessions of one
task at once; a training run's first groups ask a zero-initialised LoRA adapter (version 1) with the run's 96 tokens;
the evaluator asks the base by name with the checkpoint card's 96 tokens, its jobs interleaved across tasks and arms.
This script runs the same tasks (every third in-band training task) under each of those conditions in one server and
one proxy, one condition after another, and writes each condition's pass rate with a Student t interval over tasks.
A condition already written under OUT/base_paths/ is kept (the run resumes); results go to OUT/base_paths.{json,md}.

Conditions, named `<model>-<max tokens>-<order>`:
- `base-96-group`: the base by name, 96 tokens, the 8 sessions of a task together (as training schedules a group);
- `zero-96-group`: a zero LoRA adapter (the trainer's version 1), otherwise the same;
- `base-96-mixed`: the base, 96 tokens, sessions interleaved across tasks (as the evaluator schedules them);
- `base-512-group`: the base with the preset's 512 tokens, grouped (as `measure` runs).
"""
import argparse, json, sys, time
from pathlib import Path

from harness_adapters.config import get_preset
from harness_adapters.stats import interval
from harness_adapters.models import tiny_model_dir
from harness_adapters.rollouts import rollout_to_dict, run_many, serving_stack
from harness_adapters.serving import new_adapter
from harness_adapters.tinytasks import training_tasks

CONDITIONS = ("base-96-group", "zero-96-group", "base-96-mixed", "base-512-group")


def jobs_for(cond: str, tasks: list, samples: int, zero: str) -> tuple[list, object]:
    "The `(task, harness, model)` jobs of condition `cond`, in its order, and the preset its sessions run under."
    arm, max_tokens, order = cond.split("-")
    model = "tiny" if arm == "base" else zero
    jobs = ([(t, "pi", model) for t in tasks for _ in range(samples)] if order == "group" else
            [(t, "pi", model) for _ in range(samples) for t in tasks])
    return jobs, get_preset("tiny", max_tokens=int(max_tokens), session_timeout_s=600)


def summarise(rows: dict[str, list[dict]], rates: dict) -> list[dict]:
    "One line per condition: sessions, errored, pass rate and its interval over tasks, against the committed rates."
    out = []
    for cond, rs in rows.items():
        ok = [r for r in rs if not r["errored"]]
        by_task = {}
        for r in ok: by_task.setdefault(r["task_id"], []).append(r["reward"] == 1.0)
        m, h, _, _ = interval([sum(v) / len(v) for v in by_task.values()])   # Student t over tasks, 95 %
        out.append({"condition": cond, "tasks": len(by_task), "sessions": len(rs), "errored": len(rs) - len(ok),
                    "pass_pct": round(100 * m, 1), "ci_pct": round(100 * h, 1),
                    "committed_rate_pct": round(100 * sum(rates[t]["solve_rate"] for t in by_task) / len(by_task), 1),
                    "wall_s_mean": round(sum(r["wall_s"] for r in rs) / len(rs), 1)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=8); ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args(argv)
    out = Path(a.out); d = out / "base_paths"; d.mkdir(parents=True, exist_ok=True)
    tasks = training_tasks("train")[::3][:a.tasks]
    todo = [c for c in CONDITIONS if not (d / f"{c}.jsonl").exists()]
    if todo:
        with serving_stack(get_preset("tiny"), max_loras=2) as st:
            zero = st.server.adapters.load("zero", new_adapter(d / "zero-adapter", tiny_model_dir()))
            for cond in todo:
                jobs, preset = jobs_for(cond, tasks, a.samples, zero)
                t0 = time.monotonic()
                rs = run_many(jobs, st.proxy_url, workers=8, progress=True, preset=preset)
                rows = [{k: v for k, v in rollout_to_dict(r).items() if k != "turns"} for r in rs]
                tmp = d / f".{cond}.jsonl.tmp"
                tmp.write_text("".join(json.dumps(x) + "\n" for x in rows)); tmp.rename(d / f"{cond}.jsonl")
                print(f"{cond}: {time.monotonic() - t0:.0f} s", flush=True)
    from harness_adapters.tinytasks import solve_rates_file
    rates = json.loads(solve_rates_file().read_text())
    rows = {c: [json.loads(l) for l in (d / f"{c}.jsonl").read_text().splitlines()] for c in CONDITIONS}
    table = summarise(rows, rates)
    (out / "base_paths.json").write_text(json.dumps(table, indent=1))
    md = ["| condition | tasks | sessions | errored | pass % (95% CI over tasks) | committed base rate % | wall s/session |",
          "|---|---|---|---|---|---|---|"]
    md += [f"| {r['condition']} | {r['tasks']} | {r['sessions']} | {r['errored']} | {r['pass_pct']:.1f} ± {r['ci_pct']:.1f} "
           f"| {r['committed_rate_pct']:.1f} | {r['wall_s_mean']:.1f} |" for r in table]
    (out / "base_paths.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
