"""Benchmark: 48 concurrent pi rollouts against a scripted upstream, through safeagents, in bubblewrap sandboxes.

    python bench/rollouts_bench.py [--rollouts 48] [--workers 48]

Reports the wall time of the whole batch, per-rollout wall time (p50/p90), how it splits into model time (the
scripted upstream answers at once, so this is the proxy and HTTP path) and sandbox time (the harness, its tools, the
sandbox), the verifier's time, and the bare sandbox overhead measured in the same run: creating a sandbox, running
`true` in it and removing it. Checks that no turn was lost or misattributed (every session's final answer names the
model it asked for). Writes runs/bench/rollouts.json and runs/bench/rollouts.md.
"""
import argparse, json, statistics, time
from pathlib import Path

from harness_adapters.scripted import ScriptedUpstream  # the same scripted model server the tests use
from harness_adapters.config import get_preset
from harness_adapters.rollouts import run_many, serving_stack
from harness_adapters.sandbox import default_backend
from harness_adapters.tasks import write_task, load_task

OUT = Path("runs/bench")


class EchoModel(ScriptedUpstream):
    "First a tool call that writes the file, then a final answer naming the model that was asked."
    def next(self, body):
        super().next(body)
        done = any(m.get("role") == "tool" for m in body.get("messages", []))
        if done or not body.get("tools"): return {"text": f"I am {body.get('model')}"}
        return {"text": "", "calls": [("bash", {"command": "echo hi > made.txt"})]}


def make_task(work: Path):
    "The one-call task `EchoModel` solves: write made.txt holding hi (its verifier checks the file)."
    test = "#!/bin/bash\nmkdir -p /logs/verifier\n[ \"$(cat /workspace/made.txt 2>/dev/null)\" = hi ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
    return load_task(write_task(Path(work) / "make-hi", {"id": "make-hi", "family": "build", "difficulty": "easy", "split": "train"},
                                "Create the file made.txt containing the word hi.", {"README": "x\n"}, {"test.sh": test},
                                {"solve.sh": "#!/bin/bash\necho hi > /workspace/made.txt\n"}))


def pct(xs, q): return round(statistics.quantiles(xs, n=100)[q - 1], 3) if len(xs) > 1 else round(xs[0], 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rollouts", type=int, default=48); ap.add_argument("--workers", type=int, default=48)
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    task = make_task(OUT / "work")
    backend, bare = default_backend(), []
    for _ in range(10):
        t0 = time.perf_counter()
        with backend.create() as sb: sb.run(["true"])
        bare.append(time.perf_counter() - t0)
    preset = get_preset("tiny", agent_steps=4)
    with EchoModel([]) as up, serving_stack(preset, server=up.url) as st:
        t0 = time.perf_counter()
        rs = run_many([(task, "pi", f"m{i}") for i in range(a.rollouts)], st.proxy_url, workers=a.workers, preset=preset, timeout_s=600)
        wall = time.perf_counter() - t0
    ok = [r for r in rs if not r.errored]
    attributed = all(r.final_text == f"I am m{i}" for i, r in enumerate(rs))
    row = {"rollouts": a.rollouts, "workers": a.workers, "errored": len(rs) - len(ok), "all_attributed": attributed,
           "solved": sum(r.reward == 1.0 for r in ok), "batch_wall_s": round(wall, 1),
           "rollout_wall_s_p50": pct([r.wall_s for r in ok], 50), "rollout_wall_s_p90": pct([r.wall_s for r in ok], 90),
           "model_s_p50": pct([r.model_s for r in ok], 50), "sandbox_s_p50": pct([r.sandbox_s for r in ok], 50),
           "verifier_s_p50": pct([r.verifier_s for r in ok], 50), "bare_sandbox_s_p50": pct(bare, 50)}
    (OUT / "rollouts.json").write_text(json.dumps(row, indent=1))
    md = "| " + " | ".join(row) + " |\n|" + "---|" * len(row) + "\n| " + " | ".join(str(v) for v in row.values()) + " |\n"
    (OUT / "rollouts.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
