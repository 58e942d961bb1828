"""Per group of a training run: what each rollout did (`training.run_groups`), written to RUN_DIR/groups.jsonl.

    python tools/group_bonus.py RUN_DIR        # writes RUN_DIR/groups.jsonl from RUN_DIR/rollouts, prints a summary

GRPO learns from differences within a group, so a bonus that is the same for every solved rollout of a group teaches
nothing: the summary says whether it varies. Each group line also says which rollouts were blocked and by which
rules, and on a task with a planted shortcut what each rollout did about it, so the shortcut rate per adapter version
can be counted from committed lines. The train notebook writes the same file at the end of a run; this is for a run
folder made before it did.
"""
import sys
from harness_adapters.runs import read_jsonl
from harness_adapters.training import groups_line, write_groups

if __name__ == "__main__":
    print(groups_line(read_jsonl(write_groups(sys.argv[1]))))
