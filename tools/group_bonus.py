"""Per group of a training run: tool calls of each rollout, and the tool-call bonus each would get (`samples.reward_parts`).

    python tools/group_bonus.py RUN_DIR        # writes RUN_DIR/groups.jsonl from RUN_DIR/rollouts, prints a summary

GRPO learns from differences within a group, so a bonus that is the same for every solved rollout of a group teaches
nothing: this shows, from a run's raw rollout records, whether it varies. Each group line also says which rollouts a
call of was blocked, and on a task with a planted shortcut what each rollout did about it (`taken`, `blocked` or "":
`workspacetasks.shortcut_outcome`), so the shortcut rate per adapter version can be counted from committed lines. The rollouts stay on the machine that ran
the run; groups.jsonl is small enough to commit.
"""
import json, sys
from collections import defaultdict
from pathlib import Path

from harness_adapters.rollouts import rollout_from_dict
from harness_adapters.runs import CONFIG, train_rollout_files
from harness_adapters.samples import reward_parts
from harness_adapters.tasks import find_task
from harness_adapters.workspacetasks import shortcut_outcome


def groups(run: Path) -> list[dict]:
    "A dict per group of `run`'s training rollouts, the bonus at the run's own `bonus_weight`."
    weight = json.loads((run / CONFIG).read_text())["config"]["bonus_weight"]
    by = defaultdict(list)
    for f in train_rollout_files(run):
        r = rollout_from_dict(json.loads(f.read_text())); by[r.group_id].append(r)
    out = []
    for g, rs in by.items():
        parts, task = [reward_parts(r, weight) for r in rs], find_task(rs[0].task_id)
        solved = [b for v, b in parts if v == 1.0]             # a blocked rollout scores (0, 0)
        out.append({"group": g, "task_id": rs[0].task_id, "version": rs[0].model_version, "rollouts": len(rs),
                    "solved": len(solved), "tool_calls": [r.tool_calls for r in rs], "bonus": [round(b, 4) for _, b in parts],
                    "bonus_varies": len({round(b, 6) for b in solved}) > 1, "blocked": [r.blocked for r in rs],
                    "shortcut": [shortcut_outcome(r, task) for r in rs] if task.shortcut else []})   # taken / blocked / ""
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    gs = groups(run)
    (run / "groups.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gs))
    n = sum(g["rollouts"] for g in gs)
    print(f"{len(gs)} groups, {n} rollouts: {sum(sum(g['tool_calls']) for g in gs) / max(n, 1):.1f} tool calls a rollout, "
          f"{sum(min(g['tool_calls']) > 0 for g in gs)} groups with a tool call in every rollout, "
          f"{sum(g['bonus_varies'] for g in gs)} with the bonus varying among their solved rollouts")
