"""The evaluator: paired statistics on synthetic outcomes, bad inputs, a user's own task folders, resume, waves (more
checkpoints than LoRA slots), the raw sessions file and the tables recomputed from it, and (slow) the base model and
three checkpoints evaluated in one real vLLM server, in two waves, on held-out tiny tasks, with tables, figures and the
report written."""
import json, re, shutil, time
from pathlib import Path
from dataclasses import asdict
import numpy as np
import pandas as pd
import pytest

from harness_adapters.checkpoints import (Checkpoint, CheckpointError, NoCheckpoints, find_checkpoints, read_checkpoint,
                                          validate_checkpoints)
from harness_adapters.evaltables import SLICES, EvalResult, ResultStore, compare, recompute_tables, summary, write_tables
from harness_adapters.evaluator import EvalConfig, arms, eval_cli, evaluate, plan_jobs, plan_waves, run_jobs
from harness_adapters.stats import interval
from harness_adapters.config import get_preset
from harness_adapters.rollouts import Rollout, TurnTokens
from harness_adapters.tasks import Task, TaskFormatError, list_tasks
from harness_adapters.taskspecs import TaskSpecError, resolve_tasks


# -- helpers ---------------------------------------------------------------------------------------------------------

def paired_results(n_tasks=60, k=4, delta=0.15, seed=0, families=("qa", "data")):
    "Synthetic sessions: base solves task t with p_t ~ U(0.15, 0.6), the checkpoint with p_t + delta."
    rng, out = np.random.default_rng(seed), []
    for i in range(n_tasks):
        p = rng.uniform(0.15, 0.6)
        for arm, q, step in (("base", p, None), ("step-10", p + delta, 10)):
            for a in range(k):
                ok = bool(rng.random() < q)
                out.append(EvalResult(arm, "pi", f"t{i:03d}", a, families[i % len(families)], ("easy", "medium", "hard")[i % 3],
                                      step, reward=float(ok), solved=ok, tool_calls=3 if arm == "base" else 2, wall_s=5.0))
    return out


def fake_checkpoint(root: Path, step: int, harness="pi", preset="tiny", rank=32, card=True, agent_steps=8) -> Path:
    "A checkpoint folder with what validation reads (config + card), written atomically like the trainer's."
    final, tmp = root / f"step-{step}", root / f".staging-step-{step}"
    tmp.mkdir(parents=True)
    (tmp / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": rank}))
    if card:
        (tmp / "card.json").write_text(json.dumps({
            "base_model": {"preset": preset, "source": get_preset(preset).source}, "harness": {"name": harness},
            "adapter": {"step": step, "lora": {"rank": rank}},
            "tool_policy": {"config": "lean", "agent_steps": agent_steps, "session_timeout_s": 300}, "training": {"max_tokens": 96}}))
    tmp.rename(final)
    return final


def fake_task(tid, family="qa", difficulty="easy"):
    return Task(tid, family, difficulty, "heldout", Path("/nonexistent"), "?")


class FakeRunner:
    "Stands in for `run_rollout`: attempt 0 solves; from call `crash_at` on the 'process' is dead (KeyboardInterrupt)."
    def __init__(self, crash_at=None, delay=0.0): self.calls, self.crash_at, self.delay = [], crash_at, delay
    def __call__(self, task, harness, proxy_url, model, preset=None, group_id=None, model_version=0):
        time.sleep(self.delay)
        self.calls.append((model, task.id, group_id))
        if self.crash_at and len(self.calls) >= self.crash_at: raise KeyboardInterrupt
        ok = group_id.endswith("a0")
        return Rollout(task.id, group_id, harness, model, model_version, rollout_id=f"r{len(self.calls)}",
                       reward=float(ok), verifier_reward=float(ok), tool_calls=1, wall_s=1.0,
                       final_text=f"Answer: {int(ok)}", turns=[TurnTokens([1, 2, 3], [4, 5], [-0.1, -0.2])] * 2)


def own_task(dest: Path, tid="my-task") -> Path:
    "A user's task folder at `dest`: a copy of a shipped tiny task under id `tid`, held out."
    src = list_tasks(family="qa", source="tiny")[0]
    shutil.copytree(src.path, dest)
    toml = dest / "task.toml"
    toml.write_text(re.sub(r'(?m)^split = ".*"$', 'split = "heldout"', toml.read_text().replace(f'id = "{src.id}"', f'id = "{tid}"')))
    return dest


# -- statistics ------------------------------------------------------------------------------------------------------

def test_known_difference_is_recovered_within_its_interval():
    c = compare(paired_results(delta=0.15))
    row = c[c["slice"] == "all"].iloc[0]
    assert row.n_tasks == 60 and row.delta_lo <= 15 <= row.delta_hi, row.to_dict()
    assert row.delta_text.startswith("+") and " ± " in row.delta_text
    assert row.calls_change_pct == pytest.approx(-100 / 3)                   # 3 -> 2 calls per solved task


@pytest.mark.parametrize("method,sims", [("t", 600), ("bootstrap", 200)])
def test_interval_coverage_is_about_95_percent(method, sims):
    "Over many simulated evaluations (40 tasks, 4 attempts, a true +10 points), the 95% interval covers +10 ~95% of the time."
    rng = np.random.default_rng(7)
    pb = rng.uniform(0.1, 0.6, (sims, 40))
    d = (rng.binomial(4, pb + 0.1) - rng.binomial(4, pb)) / 4
    cover = np.mean([lo <= 0.1 <= hi for _, _, lo, hi in (interval(x, method=method, n_boot=2000) for x in d)])
    assert 0.91 <= cover <= 0.985, cover


def test_zero_difference_is_not_significant_and_one_task_has_no_interval():
    res = paired_results(delta=0.0, seed=3)
    row = compare(res).query("slice == 'all'").iloc[0]
    assert row.delta_lo <= 0 <= row.delta_hi
    one = [r for r in res if r.task_id == "t000"]
    row = compare(one).query("slice == 'all'").iloc[0]
    assert row.delta_text.endswith("± n/a (1 task)") and np.isnan(row.delta_ci) and row.delta_note == "1 task"


@pytest.mark.parametrize("method", ["t", "bootstrap"])
def test_equal_differences_print_no_interval_not_plus_minus_zero(method, tmp_path):
    "Five tasks neither arm solves: every difference is 0, so there is no spread to estimate, with either method."
    res = [EvalResult(arm, "pi", f"t{i}", a, "qa", "hard", step, reward=0.0, solved=False)
           for i in range(5) for a in range(4) for arm, step in (("base", None), ("step-10", 10))]
    row = compare(res, method).query("slice == 'all'").iloc[0]
    assert row.delta == 0 and np.isnan(row.delta_ci) and np.isnan(row.delta_lo) and np.isnan(row.delta_hi)
    assert row.delta_text == "+0.0 ± n/a (all differences equal)"
    md = write_tables(res, tmp_path, method)["markdown"].read_text()
    assert "n/a (all differences equal)" in md and "± 0.0" not in md


def test_family_with_no_tasks_is_absent_not_zero(tmp_path):
    res = paired_results(n_tasks=30, families=("qa",))
    c, s = compare(res), summary(res)
    for fam in ("data", "repair", "build", "extend"):
        row = c[(c["slice"] == "family") & (c.group == fam)].iloc[0]
        assert row.n_tasks == 0 and np.isnan(row.delta) and np.isnan(row.pass1) and row.delta_text == "—"
        assert np.isnan(s[(s.arm == "base") & (s.group == fam)].pass1.item())
    paths = write_tables(res, tmp_path)
    assert "| pi | step-10 | build | 0 | — | — | — |" in paths["markdown"].read_text()
    back = pd.read_csv(paths["comparison"])
    assert np.isnan(back[back.group == "build"].pass1.item())               # NaN on disk too, not 0


def test_errored_sessions_count_for_nothing():
    res = [EvalResult("base", "pi", "t1", 0, "qa", "easy", reward=1.0, solved=True),
           EvalResult("step-1", "pi", "t1", 0, "qa", "easy", 1, errored=True, error="verifier crashed"),
           EvalResult("base", "pi", "t2", 0, "qa", "easy", reward=0.0),
           EvalResult("step-1", "pi", "t2", 0, "qa", "easy", 1, reward=1.0, solved=True)]
    row = compare(res).query("slice == 'all'").iloc[0]
    assert (row.n_tasks, row.delta) == (1, 100.0)                             # only t2 pairs
    assert summary(res).query("arm == 'step-1' and slice == 'all'").errored.item() == 1


# -- bad input -------------------------------------------------------------------------------------------------------

def test_checkpoint_of_another_base_model_is_refused_before_anything_starts(tmp_path):
    run = tmp_path / "run"
    fake_checkpoint(run / "checkpoints", 10)
    fake_checkpoint(run / "checkpoints", 20, preset="lfm3")
    t0 = time.monotonic()
    with pytest.raises(CheckpointError, match=r"checkpoint step-20 \(.*\) was trained on base model 'lfm3' \(LiquidAI/LFM3-1.7B\); "
                                              r"this evaluation serves 'tiny'"):
        evaluate(EvalConfig(run_dir=str(run), tasks="tiny-arith-easy-01"))
    assert time.monotonic() - t0 < 30 and not (run / "eval" / "sessions.jsonl").exists()


def test_checkpoint_of_another_rank_is_refused(tmp_path):
    cks = [read_checkpoint(fake_checkpoint(tmp_path / "a", 10)), read_checkpoint(fake_checkpoint(tmp_path / "b", 20, rank=8))]
    with pytest.raises(CheckpointError, match="checkpoint b/step-20 .* has LoRA rank 8; tiny adapters have rank 32"):
        validate_checkpoints(cks, "tiny", check_shapes=False)
    bad = fake_checkpoint(tmp_path / "c", 5)
    (bad / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 16}))
    with pytest.raises(CheckpointError, match="card says LoRA rank 32 but adapter_config.json says r=16"):
        read_checkpoint(bad)


def test_real_adapter_of_another_shape_is_refused(tmp_path, tiny_dir):
    "Without a card, the tensors are checked against the base: an adapter whose shapes are not tiny's is refused."
    from safetensors.torch import save_file
    import torch
    d = tmp_path / "checkpoints" / "step-1"; d.mkdir(parents=True)
    (d / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 32, "base_model_name_or_path": ""}))
    save_file({"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight": torch.zeros(32, 2048)},
              str(d / "adapter_model.safetensors"))
    with pytest.raises(CheckpointError, match="checkpoint step-1: .*different base model"):
        validate_checkpoints([read_checkpoint(d, arm="step-1", harness="pi")], "tiny")


def test_run_without_checkpoints_says_so_and_watch_waits(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"checkpoint_every": 10, "steps": 50, "harnesses": {"pi": "x"}}))
    with pytest.raises(NoCheckpoints, match=r"has no checkpoints yet .* writes one every 10 steps .* watch the run"):
        evaluate(EvalConfig(run_dir=str(tmp_path)))
    t0 = time.monotonic()
    with pytest.raises(NoCheckpoints, match="waited"):
        evaluate(EvalConfig(run_dir=str(tmp_path), watch=True, poll_s=0.1, idle_timeout_s=0.5))
    assert time.monotonic() - t0 >= 0.5
    with pytest.raises(FileNotFoundError, match="does not exist"):
        find_checkpoints(tmp_path / "nope")


def test_cli_reports_missing_checkpoints_in_one_line(tmp_path, capsys):
    from harness_adapters.cli import main
    assert main(["eval", "--run-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "has no checkpoints yet" in out and "Traceback" not in out


def test_training_task_is_refused(tmp_path):
    fake_checkpoint(tmp_path / "checkpoints", 1)
    train = list_tasks(family="qa", source="tiny", split="train")[0].id
    with pytest.raises(ValueError, match=f"{train}: training task"):
        evaluate(EvalConfig(run_dir=str(tmp_path), tasks=train), proxy_url="http://x", runner=FakeRunner())


# -- a user's own tasks ----------------------------------------------------------------------------------------------

def test_task_folders_beside_ids_sets_and_families(tmp_path):
    "Folders anywhere, ids, sets and families, comma-separated and repeated; a user's folder passes the real trial matrix."
    mine = own_task(tmp_path / "mine")
    held = [t.id for t in list_tasks(family="qa", source="tiny", split="heldout")]
    got = resolve_tasks([f"{held[0]},{mine}", held[1], held[0]])
    assert [t.id for t in got] == sorted(["my-task", held[0], held[1]])
    assert {t.id for t in resolve_tasks(["tiny", str(mine)], split="heldout", check=False)} == {*held, "my-task"}


def test_bad_task_folder_is_a_clear_error_before_anything_starts(tmp_path, capsys):
    bad = own_task(tmp_path / "bad")
    (bad / "tests" / "test.sh").unlink()
    with pytest.raises(TaskFormatError, match=re.escape(f"task {bad.resolve()}: tests/test.sh: missing")):
        resolve_tasks(str(bad))
    with pytest.raises(TaskSpecError, match="does not exist"):
        resolve_tasks(str(tmp_path / "typo"))
    unsolvable = own_task(tmp_path / "unsolvable", "my-unsolvable")
    (unsolvable / "solution" / "solve.sh").write_text("#!/bin/bash\ntrue\n")
    with pytest.raises(TaskSpecError, match=re.escape(f"task {unsolvable.resolve()}: its trial matrix fails (oracle")):
        resolve_tasks(str(unsolvable))
    # the command line: one line naming the folder, before any checkpoint is read or server started
    t0 = time.monotonic()
    assert eval_cli(["--checkpoint", str(tmp_path / "no-checkpoint"), "--tasks", "tiny", "--tasks", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"task {bad.resolve()}: tests/test.sh: missing" in out and "Traceback" not in out
    assert time.monotonic() - t0 < 30


# -- resume and watch ------------------------------------------------------------------------------------------------

def test_interrupted_eval_resumes_without_rerunning_finished_sessions(tmp_path):
    run = tmp_path / "run"
    for s in (1, 2): fake_checkpoint(run / "checkpoints", s)
    tasks = [fake_task("t1"), fake_task("t2", "data", "hard")]
    cfg = lambda: EvalConfig(run_dir=str(run), tasks=tasks, attempts=2, workers=1)
    crash = FakeRunner(crash_at=7)
    with pytest.raises(KeyboardInterrupt):
        evaluate(cfg(), proxy_url="http://proxy", runner=crash, progress=False)
    finished = ResultStore(run / "eval").read()
    assert len(finished) == 6                                                 # 6 of 12 sessions were done
    resume = FakeRunner()
    o = evaluate(cfg(), proxy_url="http://proxy", runner=resume, progress=False)
    assert (o.ran, len(resume.calls), len(o.results)) == (6, 6, 12)
    ran_again = {(m, t, g) for m, t, g in resume.calls}
    assert not ran_again & {(m, t, g) for m, t, g in crash.calls[:6]}       # nothing finished ran twice
    lines = (run / "eval" / "sessions.jsonl").read_text().splitlines()
    assert len(lines) == 12 and len({tuple(json.loads(l)[k] for k in ("arm", "harness", "task_id", "attempt")) for l in lines}) == 12
    assert evaluate(cfg(), proxy_url="http://proxy", runner=FakeRunner(), progress=False).ran == 0


def test_sessions_file_is_the_raw_result_and_tables_come_from_it_alone(tmp_path, capsys):
    "Each session's line has what a reviewer needs; an interrupted evaluation's tables say PARTIAL; --tables-only rebuilds them."
    run = tmp_path / "run"
    fake_checkpoint(run / "checkpoints", 1)
    cfg = lambda: EvalConfig(run_dir=str(run), tasks=[fake_task("t1"), fake_task("t2")], attempts=2, workers=1)
    with pytest.raises(KeyboardInterrupt):
        evaluate(cfg(), proxy_url="http://proxy", runner=FakeRunner(crash_at=6), progress=False)
    line = json.loads((run / "eval" / "sessions.jsonl").read_text().splitlines()[0])
    assert {"task_id", "arm", "attempt", "reward", "tool_calls", "blocked_calls", "wall_s", "final_text"} <= set(line)
    assert (line["model_calls"], line["prompt_tokens"], line["completion_tokens"], line["final_text"]) == (2, 6, 4, "Answer: 1")
    assert eval_cli(["--tables-only", str(run)]) == 0                          # a run folder: its eval/
    out = capsys.readouterr().out
    assert out.startswith("PARTIAL: 5 of 8 sessions finished.") and "| pi | step-1 | all | 2 |" in out
    assert pd.read_csv(run / "eval" / "comparison.csv").partial.all()
    assert json.loads((run / "eval" / "status.json").read_text())["partial"] is True
    evaluate(cfg(), proxy_url="http://proxy", runner=FakeRunner(), progress=False)
    first = (run / "eval" / "comparison.md").read_text().splitlines()[0]
    assert first == "FINISHED: all 8 planned sessions finished (0 errored, counted for nothing)."
    tables = {f: (run / "eval" / f).read_text() for f in ("comparison.csv", "summary.csv")}
    for f in ("comparison.csv", "summary.csv", "comparison.md"): (run / "eval" / f).unlink()
    recompute_tables(run / "eval")                                              # the same tables, from the sessions alone
    assert {f: (run / "eval" / f).read_text() for f in tables} == tables


def test_older_results_file_is_still_read(tmp_path):
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(asdict(r)) + "\n" for r in paired_results(n_tasks=4, k=1)))
    assert len(ResultStore(tmp_path).read()) == 8
    assert "| pi | step-10 | all | 4 |" in recompute_tables(tmp_path)["markdown"].read_text()


# -- waves: never every LoRA slot in use -----------------------------------------------------------------------------

@pytest.mark.parametrize("k,slots,tasks,attempts", [(9, 4, 3, 2), (40, 16, 5, 4), (3, 3, 2, 1), (5, 1, 2, 3), (17, 16, 1, 2)])
def test_wave_plan(k, slots, tasks, attempts):
    "K checkpoints, S slots: no wave has more than S adapters, every (arm, task, attempt) is planned once, base in every wave."
    ck = [Checkpoint(Path(f"/x/{s}"), f"step-{s}", "pi", s, "r") for s in range(1, k + 1)]
    ts = [fake_task(f"t{i}") for i in range(tasks)]
    waves = plan_waves(ck, ts, attempts, slots, "tiny")
    assert len(waves) == -(-k // slots) and all(len(w.checkpoints) <= slots for w in waves)
    keys = [j.key for w in waves for j in w.jobs]
    assert sorted(keys) == sorted(j.key for j in plan_jobs(arms(ck, "tiny"), ts, attempts)) and len(set(keys)) == len(keys)
    for w in waves:
        assert {j.arm for j in w.jobs} - {"base"} == {c.arm for c in w.checkpoints}   # a wave runs only what it loaded
        if tasks * attempts >= len(waves): assert any(j.arm == "base" for j in w.jobs)


def test_more_checkpoints_than_slots_run_in_waves_and_resume(tmp_path, capsys):
    run = tmp_path / "run"
    for s in range(1, 6): fake_checkpoint(run / "checkpoints", s)
    cfg = lambda: EvalConfig(run_dir=str(run), tasks=[fake_task("t1"), fake_task("t2")], attempts=2, workers=3, max_adapters=2)
    crash = FakeRunner(crash_at=14)
    with pytest.raises(KeyboardInterrupt):
        evaluate(cfg(), proxy_url="http://proxy", runner=crash, progress=False)
    assert "5 checkpoints, 2 slots: 3 waves" in capsys.readouterr().out
    wave = {f"eval-step-{s}": (s - 1) // 2 for s in range(1, 6)}
    started = [wave[m] for m, _, _ in crash.calls if m in wave]
    assert started == sorted(started)                                          # a wave starts when the one before is done
    resume = FakeRunner()
    o = evaluate(cfg(), proxy_url="http://proxy", runner=resume, progress=False)
    assert "3 checkpoints, 2 slots: 2 waves" in capsys.readouterr().out
    assert (o.ran, len(o.results)) == (11, 24)
    assert not {g for *_, g in resume.calls} & {g for *_, g in crash.calls[:13]}   # nothing finished ran twice
    assert {m for m, *_ in resume.calls} == {"tiny", "eval-step-3", "eval-step-4", "eval-step-5"}


def test_watch_picks_up_checkpoints_as_they_land(tmp_path):
    import threading
    run = tmp_path / "run"; run.mkdir()
    (run / "config.json").write_text(json.dumps({"steps": 3, "checkpoint_every": 1, "harnesses": {"pi": "x"}}))
    fake_checkpoint(run / "checkpoints", 1)
    timers = [threading.Timer(t, fake_checkpoint, (run / "checkpoints", s)) for t, s in ((0.4, 2), (0.9, 3))]
    for t in timers: t.start()
    o = evaluate(EvalConfig(run_dir=str(run), tasks=[fake_task("t1")], attempts=1, watch=True, poll_s=0.05, idle_timeout_s=10),
                 proxy_url="http://proxy", runner=FakeRunner(delay=0.1), progress=False)
    assert sorted({r.arm for r in o.results}) == ["base", "step-1", "step-2", "step-3"]
    assert set(o.comparison.arm) == {"step-1", "step-2", "step-3"}


# -- the real thing: base + 3 checkpoints in one server -----------------------------------------------------------

def _two_heldout_tasks() -> str:
    "Two held-out tiny tasks, easy ones first (which tasks are held out follows the family's split, by content)."
    held = [t.id for t in list_tasks(family="qa", source="tiny", split="heldout")]
    return ",".join(sorted(held, key=lambda i: ("easy" not in i, i))[:2])


TASKS = _two_heldout_tasks()


@pytest.fixture(scope="module")
def real_run(adapters, tmp_path_factory):
    "A run folder with three checkpoints (the session's PEFT adapters) and cards written by the trainer's own functions."
    from harness_adapters.cards import run_card, write_card
    from harness_adapters.training import RunConfig
    run = tmp_path_factory.mktemp("runs") / "train-tiny"
    rc = RunConfig(run_dir=str(run), steps=3, checkpoint_every=1)
    (run / "config.json").parent.mkdir(parents=True, exist_ok=True)
    (run / "config.json").write_text(json.dumps({"run_id": "t", "config": rc.identity(), "steps": 3, "checkpoint_every": 1,
                                                 "harnesses": {"pi": "0.73.1"}}))
    card = run_card(rc.session_preset, "pi", "t", training={**rc.identity(), "checkpoint_every": 1})
    for step, name in enumerate(["zero", "a", "b"], start=1):
        d = run / "checkpoints" / f"step-{step}"
        shutil.copytree(adapters[name], d)
        write_card(d, card, step=step, version=step)
    (run / "metrics.jsonl").write_text("".join(json.dumps({"step": s, "harness": "pi", "train/reward": 0.1 * s,
        "train/pass_rate": 0.1 * s, "train/tool_calls_per_solved": 1.0, "batch/groups_per_step": 1,
        "batch/samples_per_step": 8}) + "\n" for s in (1, 2, 3)))
    return run


@pytest.mark.slow
def test_base_and_three_checkpoints_in_one_server(real_run, server, tmp_path, monkeypatch, capsys):
    "Three checkpoints, two slots: two waves on the shared server, never more than two eval adapters loaded."
    loaded, most = set(), [0]
    real_load, real_unload = server.adapters.load, server.adapters.unload
    def load(name, path, version=None):
        tag = real_load(name, path, version); loaded.add(name); most[0] = max(most[0], len(loaded)); return tag
    def unload(name): real_unload(name); loaded.discard(name)
    monkeypatch.setattr(server.adapters, "load", load); monkeypatch.setattr(server.adapters, "unload", unload)
    t0 = time.monotonic()
    cfg = EvalConfig(run_dir=str(real_run), tasks=TASKS, attempts=1, workers=4, max_adapters=2)
    o = evaluate(cfg, server=server, progress=False)
    took = time.monotonic() - t0
    said = capsys.readouterr().out
    assert "3 checkpoints, 2 slots: 2 waves" in said and "wave 2/2: step-3" in said and most[0] == 2
    assert {r.arm for r in o.results} == {"base", "step-1", "step-2", "step-3"} and len(o.results) == 8
    assert not [r.error for r in o.results if r.errored]
    served = {r.arm: r.served for r in o.results}
    assert served["base"] == "tiny" and all(served[f"step-{i}"] == f"eval-step-{i}@1" for i in (1, 2, 3))
    assert all(r.harness == "pi" and r.session for r in o.results)
    assert not any(n.startswith("eval-") for n in server.adapters.names())   # unloaded again: the server is as found
    # the paired table, by family and difficulty (tiny held-out tasks are all qa: the other families are absent)
    out = real_run / "eval"
    c = pd.read_csv(out / "comparison.csv")
    assert set(c.arm) == {"step-1", "step-2", "step-3"} and len(c) == 3 * len(SLICES)  # 10 slices: all, 6 families, 3 levels
    assert (c[(c["slice"] == "family") & (c.group == "qa")].n_tasks == 2).all()
    assert c[(c["slice"] == "family") & (c.group == "build")].pass1.isna().all()
    md = (out / "comparison.md").read_text()
    assert "Δ pass@1" in md and md.startswith("FINISHED: all 8 planned sessions") and (out / "events.jsonl").exists()
    assert all(r.model_calls and r.prompt_tokens and r.completion_tokens for r in o.results)   # the raw file has the tokens
    assert any(r.final_text for r in o.results)                                                  # ... and the answers
    # each session's rollout and conversation were saved where the dashboard looks
    from harness_adapters.dashboard import find_session, write_figures, write_report
    assert all(find_session(real_run, r.session) for r in o.results)
    figs = write_figures([real_run], tmp_path / "figures")
    assert len(figs) == 4 and all(p.stat().st_size > 5000 for p in figs)   # training, vs-base, held-out, by group
    assert "Held-out evaluation" in write_report(real_run).read_text()
    print(f"8 sessions (base + 3 checkpoints x 2 tasks, two waves) in {took:.0f} s")


@pytest.mark.slow
def test_real_eval_resumes_after_interruption(real_run, server):
    "After the run above: drop the last session (as if the job was killed), evaluate again: only that one runs."
    out = real_run / "eval" / "sessions.jsonl"
    lines = out.read_text().splitlines()
    assert len(lines) == 8, "needs test_base_and_three_checkpoints_in_one_server first"
    kept = lines[:7]
    out.write_text("\n".join(kept) + "\n")
    o = evaluate(EvalConfig(run_dir=str(real_run), tasks=TASKS, attempts=1, workers=2), server=server, progress=False)
    assert o.ran == 1 and len(o.results) == 8
    assert out.read_text().splitlines()[:7] == kept                              # finished sessions untouched


# -- the shortcut, present and removed ---------------------------------------------------------------------------------

def test_unplanted_copies_join_the_evaluation_and_the_result_slices_by_condition(tmp_path):
    "`unplanted=True` adds a copy of each shortcut-carrying task without its planted file; each session says which it had."
    from harness_adapters.results import Arm, Result, result_frame, result_markdown
    run = tmp_path / "run"
    fake_checkpoint(run / "checkpoints", 1)
    held = list_tasks("workspace", split="heldout")
    tasks = [t.id for t in held if t.shortcut][:2] + [next(t.id for t in held if not t.shortcut)]
    cfg = EvalConfig(run_dir=str(run), tasks=tasks, attempts=1, workers=1, unplanted=True, check_tasks=False)
    evaluate(cfg, proxy_url="http://proxy", runner=FakeRunner(), progress=False)
    got = {(r.task_id, r.planted) for r in ResultStore(run / "eval").read() if r.arm == "base"}
    assert got == {(tasks[0], True), (tasks[1], True), (tasks[2], False), (f"{tasks[0]}-unplanted", False), (f"{tasks[1]}-unplanted", False)}
    planted = next(t for t in held if t.id == tasks[0]).shortcut
    assert not (run / "eval" / "unplanted-tasks" / f"{tasks[0]}-unplanted" / "environment" / planted).exists()
    res = Result("t", "t", Arm("base", ("run/eval",), "base"), (Arm("step 1", ("run/eval",), "step-1"),), slices=("all", "condition"))
    df = result_frame(res, tmp_path)
    assert list(df.group) == ["all", "planted", "removed", "none"] and list(df.tasks) == [5, 2, 2, 1]
    assert "shortcut sessions %" in result_markdown(res, df)
    with pytest.raises(TaskSpecError, match="carries a planted shortcut"):
        evaluate(EvalConfig(run_dir=str(run), tasks=tasks[2:], unplanted=True, check_tasks=False, out=str(tmp_path / "e2")),
                 proxy_url="http://proxy", runner=FakeRunner(), progress=False)


def test_watched_results_reach_the_runs_tracked_project(tmp_path):
    "Each arm's held-out pass@1 lands in the run's trackio project (run `eval-pi`) and TensorBoard, at its step, once."
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from trackio.sqlite_storage import SQLiteStorage
    run = tmp_path / f"watched-{tmp_path.name}"; run.mkdir()
    (run / "config.json").write_text(json.dumps({"steps": 2, "checkpoint_every": 1, "harnesses": {"pi": "x"}}))
    fake_checkpoint(run / "checkpoints", 1)
    import threading
    threading.Timer(0.4, fake_checkpoint, (run / "checkpoints", 2)).start()
    cfg = EvalConfig(run_dir=str(run), tasks=[fake_task("t1"), fake_task("t2")], attempts=2, watch=True, poll_s=0.05,
                     idle_timeout_s=10, report_to="trackio,tensorboard")
    o = evaluate(cfg, proxy_url="http://proxy", runner=FakeRunner(delay=0.05), progress=False)
    logs = SQLiteStorage.get_logs(run.name, "eval-pi")
    assert [x["step"] for x in logs] == [0, 1, 2]
    s = o.summary[(o.summary.slice == "all")].set_index("arm")
    assert [x["eval/pass@1"] for x in logs] == pytest.approx([s.pass1["base"], s.pass1["step-1"], s.pass1["step-2"]])
    ea = EventAccumulator(str(run / "eval" / "tensorboard" / "pi")); ea.Reload()
    assert [e.step for e in ea.Scalars("eval/pass@1")] == [0, 1, 2]
    with pytest.raises(ValueError, match="unknown report_to 'wandb'"): EvalConfig(run_dir=str(run), report_to="wandb")
