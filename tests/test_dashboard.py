"""The dashboard on a synthetic run folder: the widget code driven as a user would, the figures, the HTML report."""
import json
from dataclasses import asdict
from html.parser import HTMLParser
from pathlib import Path
import numpy as np
import pytest

from harness_adapters.dashboard import (Dashboard, find_runs, find_session, learning_summary, load_run, report_html,
                                        write_figures, write_report)
from harness_adapters.evaltables import SLICES, EvalResult, ResultStore, write_tables
from harness_adapters.stats import interval

TRAJ = {"schema_version": "ATIF-v1.6", "session_id": "g1.r2", "steps": [
    {"step_id": 1, "source": "user", "message": "What is 17 + 25?"},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c2", "function_name": "bash",
     "arguments": {"command": "cat /tests/expected.json"}}],
     "observation": {"results": [{"source_call_id": "c2", "content": "[safeagents] blocked call to `bash`: reads the answer"}]}},
    {"step_id": 3, "source": "agent", "message": "The answer is 42."}]}


def event(t, session, tool, verdict, rules=(), reason=""):
    return {"time": 1.7e9 + t, "api": "openai", "session": session, "tool": tool, "verdict": verdict,
            "stage": None if verdict == "allow" else 1, "rules": [{"id": r, "severity": "high", "stage": 1} for r in rules],
            "check_ms": 11.0, "call_id": f"c{t}", "reason": reason}


def make_run(root: Path, name="train-demo", harnesses=("pi",), with_eval=True) -> Path:
    "A run folder as the trainer and the evaluator write it (several trainers: `<harness>/` subfolders)."
    d = root / name; d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"config": {"model": "tiny", "harness": ",".join(harnesses), "bonus_weight": 0.1,
                                   "guard": "on"}, "steps": 6, "checkpoint_every": 3, "harnesses": {h: "1" for h in harnesses}}))
    for h in harnesses:
        td = d if len(harnesses) == 1 else d / h
        td.mkdir(exist_ok=True)
        (td / "metrics.jsonl").write_text("".join(json.dumps({"step": s, "harness": h, "train/reward": 0.1 * s,
            "train/pass_rate": 0.1 * s, "train/tool_calls_per_solved": 2.0, "batch/groups_per_step": 1 + s % 2,
            "batch/samples_per_step": 8 * (1 + s % 2)}) + "\n" for s in range(1, 7)))
        (td / "rollouts" / "g1").mkdir(parents=True)
        (td / "rollouts" / "g1" / "r2.trajectory.json").write_text(json.dumps(TRAJ))
        (td / "rollouts" / "g1" / "r2.json").write_text(json.dumps({"task_id": "tiny-x", "reward": 0.0, "blocked": True}))
    (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in [
        event(1, "g1.r1", "bash", "allow"), event(2, "g1.r2", "bash", "block", ["smoldataenvs.answer_source"], "reads the answer"),
        event(3, "g3.r3", "read", "suspicious", ["common.secret_read"])]))
    if with_eval:
        rng, res = np.random.default_rng(1), []
        for i in range(10):
            for arm, step in (("base", None), ("step-3", 3), ("step-6", 6)):
                ok = bool(rng.random() < 0.4 + 0.03 * (step or 0))
                res.append(EvalResult(arm, harnesses[0], f"tiny-t{i}", 0, "qa", ("easy", "hard")[i % 2], step, name,
                                      reward=float(ok), solved=ok, tool_calls=1, wall_s=9.0, session=f"eval-{arm}-{i}.x"))
        (d / "eval").mkdir()
        (d / "eval" / "results.jsonl").write_text("".join(json.dumps(asdict(r)) + "\n" for r in res))   # an older run's name
        (d / "eval" / "events.jsonl").write_text(json.dumps(event(9, "eval-step-6-tiny-t1-a0.abc", "bash", "block", ["traj2envs.test_edit"])) + "\n")
        sess = d / "eval" / "rollouts" / "eval-step-6-tiny-t1-a0.abc"; sess.mkdir(parents=True)
        (sess / "trajectory.json").write_text(json.dumps({**TRAJ, "steps": [{"step_id": 1, "source": "user", "message": "eval question"}]}))
        write_tables(res, d / "eval")
    return d


@pytest.fixture
def runs(tmp_path):
    return [make_run(tmp_path / "runs"), make_run(tmp_path / "runs", "train-two", ("pi", "hermes"), with_eval=False)]


def test_widget_over_two_runs(runs, tmp_path):
    pytest.importorskip("ipywidgets")
    dash = Dashboard(runs, root=tmp_path / "runs")
    assert set(dash.pick.options) == {str(p) for p in runs} and len(dash.runs) == 2
    for img in (dash.train_img, dash.eval_img, dash.groups_img):
        assert img.value[:4] == b"\x89PNG"
    assert "step-6" in dash.eval_table.value and "—" in dash.eval_table.value or "step-6" in dash.eval_table.value
    # the events: blocked and suspicious by default, from training and evaluation, of both runs
    labels = [l for l, _ in dash.event_list.options]
    assert len(labels) == 2 + 2 + 1 and all(("block" in l or "suspicious" in l) for l in labels)
    dash.source.value = "eval"
    assert len(dash.event_list.options) == 1
    dash.event_list.value = 0
    assert "eval question" in dash.conversation.value
    dash.source.value, dash.verdict.value, dash.search.value = "train", "block", "answer_source"
    assert len(dash.event_list.options) == 2                                  # one per run
    dash.event_list.value = 0
    assert "What is 17 + 25?" in dash.conversation.value and "cat /tests/expected.json" in dash.conversation.value
    dash.search.value = "no-such-rule"
    assert dash.event_list.options == () or list(dash.event_list.options) == []
    # refresh reads the files again: a new step shows up
    with open(runs[0] / "metrics.jsonl", "a") as f: f.write(json.dumps({"step": 7, "harness": "pi", "train/reward": 0.9}) + "\n")
    dash.refresh()
    assert dash.runs[0].metrics.step.max() == 7
    dash.pick.value = (str(runs[1]),)
    assert [r.name for r in dash.runs] == ["train-two"] and sorted(dash.runs[0].metrics.harness.unique()) == ["hermes", "pi"]
    dash.auto(3600); dash.stop()


def test_reading_runs(runs, tmp_path):
    assert find_runs(tmp_path / "runs") == sorted(runs)
    r = load_run(runs[0])
    assert len(r.metrics) == 6 and set(r.events.source) == {"train", "eval"} and len(r.comparison) == 2 * len(SLICES)
    two = load_run(runs[1])
    assert len(two.metrics) == 12 and two.comparison.empty and two.summary.empty
    assert find_session(runs[1], "g1.r2")["trajectory"]["session_id"] == "g1.r2"      # under <harness>/rollouts/


def test_figures_and_standalone_report(runs, tmp_path):
    figs = write_figures(runs, tmp_path / "figures")
    assert [p.name for p in figs][:4] == ["train-demo-training.png", "train-demo-vs-base.png", "train-demo-heldout.png",
                                          "train-demo-heldout-groups.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in figs) and len(figs) == 8
    for rd in runs:
        rep = write_report(rd)
        text = rep.read_text()

        class Parse(HTMLParser):
            tags, links = [], []
            def handle_starttag(self, tag, attrs):
                self.tags.append(tag); self.links += [v for k, v in attrs if k in ("src", "href")]
        p = Parse(); p.tags, p.links = [], []; p.feed(text)
        assert "script" not in p.tags and "link" not in p.tags                  # nothing to fetch, nothing to run
        assert all(v.startswith("data:image/png;base64,") for v in p.links)
        assert "safeagents events" in text and "What is 17 + 25?" in text
    demo = (runs[0] / "report.html").read_text()
    assert demo.count("<img") == 3 and "Δ pass@1" in demo and "<td>build</td><td>0</td><td>—</td>" in demo
    assert "no evaluation yet" in (runs[1] / "report.html").read_text()


def test_report_cli(runs, tmp_path, capsys):
    from harness_adapters.cli import main
    assert main(["report", str(runs[0]), "--figures", str(tmp_path / "f")]) == 0
    assert (runs[0] / "report.html").exists() and (tmp_path / "f" / "train-demo-heldout.png").exists()


def test_report_of_missing_run_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        report_html(tmp_path / "nope")


def test_partial_evaluation_is_marked(runs):
    "An evaluation planned for more sessions than it has: the report and the widget's table say PARTIAL, with the counts."
    ev = runs[0] / "eval"
    (ev / "config.json").write_text(json.dumps({"plan_arms": [["base", "pi"], ["step-3", "pi"], ["step-6", "pi"]],
                                                "tasks": [f"tiny-t{i}" for i in range(12)], "attempts": 1}))
    write_tables(ResultStore(ev).read(), ev)                                  # 30 of 36: two planned tasks never ran
    r = load_run(runs[0])
    assert r.eval_status["partial"] and (r.eval_status["finished"], r.eval_status["planned"]) == (30, 36)
    assert len(r.sessions) == 30                                              # read from the older results.jsonl
    assert "<p class='partial'>PARTIAL: 30 of 36 sessions finished." in report_html(runs[0])


def test_in_run_table_intervals_are_over_tasks(runs):
    "vs_base.csv with many groups of one task: the report's interval is over tasks, and one task gives n/a, not ± 0.0."
    rows = [{"harness": "pi", "group_id": f"g{i}", "task_id": t, "version": v, "n": 8, "pass_rate": p, "base_rate": 0.25,
             "excess": p - 0.25} for i, (t, v, p) in enumerate([("tiny-a", 1, 0.25)] * 5 + [("tiny-a", 4, 0.5)] * 5
                                                                 + [("tiny-b", 4, 0.25), ("tiny-c", 4, 0.0)])]
    import pandas as pd
    pd.DataFrame(rows).to_csv(runs[0] / "vs_base.csv", index=False)
    s = learning_summary(load_run(runs[0]).groups).set_index("groups")
    assert (s.loc["version 1 (base)", "n_groups"], s.loc["version 1 (base)", "n_tasks"]) == (5, 1)
    assert s.loc["version 1 (base)", "excess_text"] == "+0.0 ± n/a (1 task)"
    late = s.loc["versions 3+"]
    assert (late.n_groups, late.n_tasks, late.excess) == (7, 3, 0.0)
    assert late.excess_ci == pytest.approx(interval([25, 0, -25])[1], abs=0.05)
    html = report_html(runs[0])
    assert "+0.0 ± n/a (1 task)" in html and "95% CI over tasks" in html
