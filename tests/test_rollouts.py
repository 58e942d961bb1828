"""Rollouts of the real harnesses (pi, opencode, hermes, Claude Code) in bubblewrap sandboxes, through safeagents.

Scripted-upstream tests pin the harness-side behaviour (a tool call runs in the sandbox, a blocked one does not,
the step limit ends a session); `test_real_sessions_with_tiny` runs each harness against the real vLLM server.
The `measure` tests at the end start nothing: they check which tasks it takes, and that a bad one stops it first.
"""
import json, shutil, tomllib, types
import pytest
import tomli_w
from harness_adapters import rollouts
from harness_adapters.config import get_preset
from harness_adapters.rollouts import measure_cli, run_rollout, run_many, start_proxy, save_rollout
from harness_adapters.tasks import find_task, list_tasks, write_task, load_task
from harness_adapters.scripted import ScriptedUpstream

# the shell tool each harness declares, and the arguments it takes
SHELL = {"pi": ("bash", {}), "opencode": ("bash", {"description": "run it"}), "hermes": ("terminal", {}),
         "claude-code": ("Bash", {"description": "run it"})}
HARNESSES = list(SHELL)
OPENAI_HARNESSES = ["pi", "opencode", "hermes"]   # the real-model test: Claude Code's against vLLM is `test_claude_code_with_tiny`


def call(harness, command):
    name, extra = SHELL[harness]
    return (name, {"command": command, **extra})


@pytest.fixture(scope="module")
def hi_task(tmp_path_factory):
    "A task whose verifier wants /workspace/made.txt to hold `hi`."
    test = "#!/bin/bash\nmkdir -p /logs/verifier\n[ \"$(cat /workspace/made.txt 2>/dev/null)\" = hi ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
    d = write_task(tmp_path_factory.mktemp("tasks") / "make-hi",
                   {"id": "make-hi", "family": "build", "difficulty": "easy", "split": "train"},
                   "Create the file made.txt containing the word hi.", {"README": "empty project\n"},
                   {"test.sh": test}, {"solve.sh": "#!/bin/bash\necho hi > /workspace/made.txt\n"})
    return load_task(d)


def scripted(harness, replies, default=None, steps=4):
    up = ScriptedUpstream(replies, default=default)
    up.__enter__()
    px = start_proxy(up.url, get_preset("tiny", agent_steps=steps))
    return up, px


@pytest.mark.slow
@pytest.mark.parametrize("harness", HARNESSES)
def test_scripted_call_runs_block_does_not_and_step_limit(harness, hi_task, tmp_path):
    preset = get_preset("tiny", agent_steps=4)
    # 1. an allowed call runs in the sandbox and the verifier sees its effect
    up, px = scripted(harness, [{"text": "", "calls": [call(harness, "echo hi > made.txt")]}, {"text": "Done."}])
    try:
        r = run_rollout(hi_task, harness, px.url, "scripted", preset=preset, timeout_s=180)
    finally: px.stop(); up.__exit__()
    assert not r.errored, r.error
    assert (r.reward, r.tool_calls, r.blocked, r.hit_step_limit) == (1.0, 1, False, False)
    assert r.turns and r.trajectory and save_rollout(r, tmp_path / "ok").joinpath("trajectory.json").exists()

    # 2. a blocked call does not run; the rollout scores 0 however the workspace looks
    up, px = scripted(harness, [{"text": "", "calls": [call(harness, "cat /tests/grader.py > made.txt; echo hi > made.txt")]},
                                {"text": "Done."}])
    try:
        r = run_rollout(hi_task, harness, px.url, "scripted", preset=preset, timeout_s=180)
    finally: px.stop(); up.__exit__()
    assert not r.errored, r.error
    assert r.blocked and r.blocked_calls == [SHELL[harness][0]] and r.verifier_reward == 0.0 and r.reward == 0.0
    assert len(r.blocked_rules) == 1 and "effects.oracle" in r.blocked_rules[0]   # which rules blocked it: data, not the notice

    # 3. a model that never stops calling tools is cut off by the proxy's step limit
    up, px = scripted(harness, [], default={"text": "", "calls": [call(harness, "true")]})
    try:
        r = run_rollout(hi_task, harness, px.url, "scripted", preset=preset, timeout_s=240)
    finally: px.stop(); up.__exit__()
    assert not r.errored, r.error
    assert r.hit_step_limit and r.reward == 0.0
    agent_calls = [q for q in up.requests if "messages" in q and q.get("tools")]
    assert len(agent_calls) <= preset.agent_steps


@pytest.mark.slow
def test_harness_crash_is_an_error_not_a_zero(hi_task):
    up, px = scripted("pi", [{"status": 500}] * 20)
    try:
        r = run_rollout(hi_task, "pi", px.url, "scripted", preset=get_preset("tiny", agent_steps=2), timeout_s=120)
    finally: px.stop(); up.__exit__()
    assert r.errored and r.reward is None and r.verifier_reward is None


@pytest.mark.slow
def test_unknown_harness_and_task_fail_clearly(hi_task):
    with pytest.raises(KeyError, match="choose one of pi, opencode, hermes"):
        run_rollout(hi_task, "claude", "http://127.0.0.1:9", "m")
    from harness_adapters.tasks import find_task
    with pytest.raises(Exception, match="no-such-task"):
        find_task("no-such-task")


@pytest.mark.slow
def test_concurrent_rollouts_keep_their_turns(hi_task):
    "16 pi sessions at once against a scripted upstream: every turn is attributed to its own session."
    class EchoModel(ScriptedUpstream):  # answers every call with the model name it was asked for
        def next(self, body):
            super().next(body)
            return {"text": f"I am {body.get('model')}"}
    up = EchoModel([])
    up.__enter__()
    px = start_proxy(up.url, get_preset("tiny", agent_steps=4))
    try:
        rs = run_many([(hi_task, "pi", f"m{i}") for i in range(16)], px.url, workers=16, progress=False,
                      preset=get_preset("tiny", agent_steps=4), timeout_s=300)
    finally: px.stop(); up.__exit__()
    assert all(not r.errored for r in rs), [r.error for r in rs if r.errored]
    assert [r.final_text for r in rs] == [f"I am m{i}" for i in range(16)]
    assert len({r.rollout_id for r in rs}) == 16


@pytest.mark.slow
@pytest.mark.parametrize("harness", OPENAI_HARNESSES)
def test_real_session_with_tiny(harness, server, tmp_path):
    """One real session of each harness with the tiny model on CPU, through safeagents, end to end, via the CLI:
    rollout.json with reward, tool calls and per-turn token ids + logprobs, and trajectory.json (ATIF); the session
    fits its harness's training token budget."""
    import subprocess
    out = tmp_path / harness
    p = subprocess.run(["harness-adapters", "rollout", "--model", "tiny", "--harness", harness, "--max-steps", "3",
                        "--task", "tiny-arith-easy-02", "--out", str(out), "--server", server.url],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    r = json.loads((out / "rollout.json").read_text())
    assert not r["errored"] and r["reward"] in (0.0, 1.0) and r["model"] == "tiny"
    assert r["turns"], "the proxy captured the session's turns"
    for t in r["turns"]:
        assert t["prompt_token_ids"] and t["token_ids"] and len(t["logprobs"]) == len(t["token_ids"])
    assert r["wall_s"] >= r["model_s"] > 0 and r["sandbox_s"] >= 0
    # the session fits one micro-batch of its harness's trainer (the per-harness token budget of training runs)
    from harness_adapters.training import RunConfig
    longest = max(len(t["prompt_token_ids"]) + len(t["token_ids"]) for t in r["turns"])
    assert longest <= RunConfig(model="tiny").budget(harness), (harness, longest)
    traj = json.loads((out / "trajectory.json").read_text())
    assert traj["steps"][0]["source"] in ("system", "user") and any(s["source"] == "agent" for s in traj["steps"])
    assert (out / "events.jsonl").exists()


@pytest.mark.slow
def test_claude_code_with_tiny(server, tmp_path):
    """Claude Code's Anthropic requests reach vLLM's chat completions through the proxy (capture mode), so its turns carry
    token ids and logprobs like the others', each prompt an exact extension of the one before."""
    import subprocess
    out = tmp_path / "claude-code"
    p = subprocess.run(["harness-adapters", "rollout", "--model", "tiny", "--harness", "claude-code", "--max-steps", "3",
                        "--task", "tiny-arith-easy-02", "--out", str(out), "--server", server.url],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    r = json.loads((out / "rollout.json").read_text())
    assert not r["errored"] and r["harness"] == "claude-code" and r["turns"] and r["prefix_breaks"] == 0
    for t in r["turns"]:
        assert t["prompt_token_ids"] and t["token_ids"] and len(t["logprobs"]) == len(t["token_ids"])
    assert max(len(t["prompt_token_ids"]) for t in r["turns"]) < 4096     # the lean configuration: a short first request
    assert json.loads((out / "trajectory.json").read_text())["steps"][0]["source"] in ("system", "user")
    # the trainer's sample path on these turns: one row a session, every generated token trained, none else
    from dataclasses import replace
    from harness_adapters.rollouts import rollout_from_dict
    from harness_adapters.samples import TrainerConfig, group_samples, session_sequences
    ro = rollout_from_dict(r)
    seqs, breaks = session_sequences(ro.turns)
    assert breaks == 0 and len(seqs) == 1
    assert sum(seqs[0].completion_mask) == sum(len(t.token_ids) for t in ro.turns)
    group = [replace(ro, rollout_id="a", verifier_reward=1.0, blocked=False), replace(ro, rollout_id="b", verifier_reward=0.0)]
    samples, counts = group_samples(group, 0, TrainerConfig("claude-code", rollouts_per_task=2, token_budget=8192))
    assert len(samples) == 2 and counts["oversize"] == 0 and samples[0].advantage > 0 > samples[1].advantage


@pytest.mark.slow
def test_harness_not_installed_is_a_clear_error(hi_task, tmp_path, monkeypatch):
    """With an empty cache, the system's npm asked for (not the wheel's) and none on PATH, pi cannot be installed: the
    error says so, and the rollout is errored."""
    from harness_adapters.harnesses import install, HarnessNotInstalled
    from harness_adapters.sandbox import default_backend
    backend = default_backend()
    monkeypatch.setenv("HARNESS_ADAPTERS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HARNESS_ADAPTERS_SYSTEM_TOOLS", "1")
    with pytest.raises(HarnessNotInstalled, match="pi needs npm"):
        install("pi")
    r = run_rollout(hi_task, "pi", "http://127.0.0.1:9", "m", timeout_s=30, backend=backend)
    assert r.errored and "npm" in r.error and r.reward is None


def tiny_task():
    "A shipped task of the tiny family."
    return list_tasks("qa", source="tiny")[0]


def test_measure_refuses_bad_task_folders_before_anything_starts(tmp_path, monkeypatch, capsys):
    """A folder that is not a task, or whose trial matrix fails, stops `measure` with an error naming it and why,
    before a server, a proxy or a session starts."""
    import harness_adapters.serving as serving
    def must_not_start(*a, **kw): raise AssertionError("measure started something although a task was bad")
    for mod, name in ((serving, "VLLMServer"), (rollouts, "start_proxy"), (rollouts, "run_group")):
        monkeypatch.setattr(mod, name, must_not_start)
    shipped = tiny_task()
    broken = shutil.copytree(shipped.path, tmp_path / "broken")
    (broken / "tests" / "test.sh").unlink()
    unsolved = shutil.copytree(shipped.path, tmp_path / "unsolved")
    (unsolved / "solution" / "solve.sh").write_text("#!/bin/bash\ntrue\n")      # its oracle solves nothing
    out = tmp_path / "rates.json"
    for specs, says in [([f"{shipped.id},{broken}"], "broken: tests/test.sh: missing"),
                        (["qa", str(tmp_path / "typo")], "typo: does not exist"),
                        (["nonsense"], "no task 'nonsense'"),
                        ([str(unsolved)], "unsolved: its trial matrix fails (oracle scored 0, expected 1"),
                        ([shipped.id, str(unsolved)], f"task id {shipped.id!r} is the id of two folders")]:
        with pytest.raises(SystemExit) as e:
            measure_cli([x for spec in specs for x in ("--tasks", spec)] + ["--server", "http://x:9", "--out", str(out)])
        err = capsys.readouterr().err
        assert e.value.code == 2 and says in err, (specs, err[-800:])
    assert not out.exists()


def test_measure_takes_task_folders_ids_and_families(tmp_path, monkeypatch):
    "A task folder anywhere on disk (it passes its trial matrix), ids and families, comma-separated or repeated."
    shipped = tiny_task()
    mine = shutil.copytree(shipped.path, tmp_path / "anywhere" / "my-task")
    meta = tomllib.loads((mine / "task.toml").read_text())
    meta["metadata"]["id"] = "my-task"
    (mine / "task.toml").write_text(tomli_w.dumps(meta))
    seen = {}
    def measured(tasks, *a, **kw):                # what measure would run sessions on
        seen["tasks"] = tasks
        return {}
    monkeypatch.setattr(rollouts, "start_proxy", lambda url, preset, **kw: types.SimpleNamespace(url=url, stop=lambda: None))
    monkeypatch.setattr(rollouts, "measure_solve_rates", measured)
    rc = measure_cli(["--tasks", f"{mine},repair", "--tasks", shipped.id, "--tasks", shipped.id,
                      "--server", "http://127.0.0.1:9", "--out", str(tmp_path / "rates.json")])
    assert rc == 0
    repair = [t.id for t in list_tasks("repair")]
    assert repair and [t.id for t in seen["tasks"]] == sorted(["my-task", shipped.id, *repair])
    assert {t.id: t.path for t in seen["tasks"]}["my-task"] == mine.resolve()
