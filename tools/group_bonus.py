"""Per group of a training run: tool calls of each rollout, and the tool-call bonus each would get (`samples.reward_parts`).

    python tools/group_bonus.py RUN_DIR        # writes RUN_DIR/groups.jsonl from RUN_DIR/rollouts, prints a summary

GRPO learns from differences within a group, so a bonus that is the same for every solved rollout of a group teaches
nothing: this shows, from a run's raw rollout records, whether it varies. The rollouts stay on the machine that ran
the run; groups.jsonl is small enough to commit.
"""
import json, sys
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

from harness_adapters.samples import reward_parts


def groups(run: Path, bonus_weight: float = 0.1) -> list[dict]:
    by = defaultdict(list)
    for f in sorted(run.glob("rollouts/*/*/rollout.json")):
        d = json.loads(f.read_text()); by[d["group_id"]].append(d)
    out = []
    for g, rs in by.items():
        parts = [reward_parts(SimpleNamespace(**{k: r.get(k) for k in ("verifier_reward", "blocked", "tool_calls")}), bonus_weight) for r in rs]
        solved = [b for (v, b), r in zip(parts, rs) if v == 1.0 and not r["blocked"]]
        out.append({"group": g, "task_id": rs[0]["task_id"], "version": rs[0]["model_version"], "rollouts": len(rs),
                    "solved": len(solved), "tool_calls": [r["tool_calls"] for r in rs], "bonus": [round(b, 4) for _, b in parts],
                    "bonus_varies": len({round(b, 6) for b in solved}) > 1})
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    gs = groups(run)
    (run / "groups.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gs))
    n = sum(g["rollouts"] for g in gs)
    print(f"{len(gs)} groups, {n} rollouts: {sum(sum(g['tool_calls']) for g in gs) / max(n, 1):.1f} tool calls a rollout, "
          f"{sum(min(g['tool_calls']) > 0 for g in gs)} groups with a tool call in every rollout, "
          f"{sum(g['bonus_varies'] for g in gs)} with the bonus varying among their solved rollouts")
