"""Check: base sessions alone, then interleaved with a trained checkpoint's sessions (the evaluator's schedule).

    python bench/base_beside_adapter.py CHECKPOINT [--attempts 4] [--out runs/bench/base_beside_adapter]

One server (two LoRA slots), one proxy, 8 in-band training tasks, pi, 96 output tokens: the base model's pass rate
must not move when a checkpoint's sessions run beside it, and the checkpoint's own rate is measured in the same run.
Each condition's sessions go to OUT/<condition>.jsonl; a condition already there is kept.
"""
import json
from pathlib import Path
from harness_adapters.config import get_preset
from harness_adapters.rollouts import run_many, rollout_to_dict, serving_stack
from harness_adapters.tinytasks import training_tasks
import argparse
ap = argparse.ArgumentParser(); ap.add_argument("checkpoint"); ap.add_argument("--attempts", type=int, default=4)
ap.add_argument("--out", default="runs/bench/base_beside_adapter"); a = ap.parse_args()
out = Path(a.out); out.mkdir(parents=True, exist_ok=True); n = a.attempts
tasks = training_tasks("train")[::3][:8]   # the tasks of bench/base_paths.py
preset = get_preset("tiny", max_tokens=96, session_timeout_s=600)
with serving_stack(preset, max_loras=2) as st:
    ad = st.server.adapters.load("pi24", a.checkpoint)
    for cond, jobs in [("base-alone", [(t, "pi", "tiny") for _ in range(n) for t in tasks]),
                       ("interleaved", [(t, "pi", m) for _ in range(n) for t in tasks for m in ("tiny", ad)])]:
        f = out / f"{cond}.jsonl"
        if f.exists():
            from harness_adapters.rollouts import rollout_from_dict
            rs = [rollout_from_dict(json.loads(l)) for l in f.read_text().splitlines()]
        else:
            rs = run_many(jobs, st.proxy_url, workers=8, progress=True, preset=preset)
            f.write_text("".join(json.dumps({k: v for k, v in rollout_to_dict(r).items() if k != "turns"}) + "\n" for r in rs))
        for m in ("tiny", ad):
            ok = [r for r in rs if r.model == m and not r.errored]
            if ok: print(cond, m.split("@")[0], "solved", sum(r.reward == 1 for r in ok), "of", len(ok), flush=True)
