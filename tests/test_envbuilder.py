"""The environment builder end to end on tests/data/trajectories (see its SOURCES.md and make_sessions.py).

Fast: one full build (trial matrix included, about a minute), then the summary, drop reasons, split, content hashes,
resuming, the OpenAI-compatible teacher against a scripted server and the CLI. Slow: the trial matrix re-run on every
task, every claimed mutant kill re-checked through the task's own verifier, a second build compared byte for byte,
and the scoring step with real pi sessions against a scripted model.
"""
import json, shutil, tomllib
from pathlib import Path
import pytest
from harness_adapters.envbuilder import BuildConfig, build_envs, envs_cli, folder_hash, score_tasks
from harness_adapters.envfacts import Candidate
from harness_adapters.envtests import OpenAITeacher, RecordedTeacher, mutants, mutation_lines, mutation_paths
from harness_adapters.tasks import heldout_split, load_task
from harness_adapters.verifiers import check_task, run_verifier

DATA = Path(__file__).parent / "data" / "trajectories"
TEACHER = Path(__file__).parent / "data" / "teacher"


def build(out):
    return build_envs(DATA, BuildConfig(out, RecordedTeacher(TEACHER), heldout_percent=50), progress=False)


@pytest.fixture(scope="module")
def run1(tmp_path_factory):
    out = tmp_path_factory.mktemp("envs") / "run1"
    return out, build(out)


def records(out):
    return {json.loads(p.read_text())["origin"]: json.loads(p.read_text()) for p in (out / "records").glob("*.json")}


def test_summary_counts(run1):
    out, s = run1
    assert s["trajectories_in"] == 14
    assert s["status"] == {"done": 6, "malformed": 3, "no work": 4, "screened out": 1}
    # read since the lenient reader (#45): the ATIF-v1.2 fixture and the trajectory without `agent`; nothing else repaired
    assert (s["repaired"], s["repairs"]) == (2, {"no_agent": 1, "old_version": 1})
    assert s["candidates"] == {"repair": 4, "build": 5, "extend": 1, "qa": 1}
    assert s["kept"] == {"repair": 2, "build": 2, "extend": 1, "qa": 1}
    assert json.loads((out / "summary.json").read_text()) == s
    assert "| repair | 4 | 2 |" in (out / "summary.md").read_text()
    assert "repaired on reading: 2 (no_agent: 1, old_version: 1)" in (out / "summary.md").read_text()


def test_each_drop_has_the_right_reason(run1):
    r = records(run1[0])
    reasons = lambda origin: sorted(d["reason"] for d in r[origin]["drops"])
    assert reasons("pi/reward_hack.jsonl") == ["screen: atif-scan tamper.reward_write"]
    assert r["pi/reward_hack.jsonl"]["candidates"] == []  # screened out before anything is looked for
    assert reasons("pi/edits_tests.jsonl") == ["repair: tests edited between the failing and the passing check",
                                              "validate: kill rate below the threshold"]
    assert reasons("atif/claude_unreplayable_calc.json") == ["replay: an edit did not apply"] * 2
    assert reasons("atif/openhands_repair_slugify.json") == ["teacher: no usable answer"]
    assert "no recorded answer" in r["atif/openhands_repair_slugify.json"]["drops"][0]["detail"]
    # its edit of a file that does not exist failed in the session (the harness said so): skipped, reported apart (#45)
    assert r["atif/openhands_repair_slugify.json"]["replay_problems"] == []
    assert r["atif/openhands_repair_slugify.json"]["failed_writes"] == [
        "step 5: edit of /workspace/README.md failed: its result says 'ERROR: Invalid `path` parameter: /workspace/README.md. "
        "The path /workspace/READM'"]
    malformed = {o: rec["drops"][0]["detail"] for o, rec in r.items() if rec["status"] == "malformed"}
    assert malformed == {"malformed/no_steps.json": "lacks steps", "malformed/step_without_source.json": "lacks steps[1].source",
                         "malformed/truncated.json": malformed["malformed/truncated.json"]}
    assert "not valid JSON" in malformed["malformed/truncated.json"]
    # refused before the lenient reader (#45), read now with what was assumed; neither has work in it
    assert {o: (r[o]["status"], r[o]["repairs"]) for o in ("atif/batch.jsonl#2", "malformed/old_version.json")} == {
        "atif/batch.jsonl#2": ("no work", {"no_agent": "agent missing: placeholder (name and version 'unknown')"}),
        "malformed/old_version.json": ("no work", {"old_version": "schema_version ATIF-v1.2 read as v1.8"})}
    assert sorted(o for o, rec in r.items() if "repairs" in rec) == ["atif/batch.jsonl#2", "malformed/old_version.json"]
    # the near miss on the kill rate: the teacher's two tests of c_to_f fail on the (buggy) oracle and are dropped
    v = next(c for c in r["pi/edits_tests.jsonl"]["candidates"] if c["family"] == "build")["validation"]
    assert sorted(v["verdicts"].values()) == ["fails on the oracle", "fails on the oracle", "kept"] and v["kill_rate"] < 0.5


def test_task_folders_and_split_by_source(run1):
    out, s = run1
    r = records(out)
    by_source = {}
    for rec in r.values():
        for c in rec["candidates"]:
            if not c["kept"]: continue
            t = load_task(out / c["task"])
            meta = tomllib.loads((t.path / "task.toml").read_text())["metadata"]
            assert (t.id, t.family, t.source) == (c["id"], c["family"], rec["key"])
            assert meta["content_hash"] == folder_hash(t.path) and "unscored" in t.tags
            assert t.split == heldout_split(rec["key"], 50) == c["split"]
            by_source.setdefault(rec["key"], set()).add(t.split)
    assert sorted(s["tasks"]) == sorted(p.name for p in (out / "tasks").iterdir())
    assert all(len(splits) == 1 for splits in by_source.values())  # no source straddles train and held-out
    assert {sp for splits in by_source.values() for sp in splits} == {"train", "heldout"}
    ext = next(c for c in r["pi/extend_inventory.jsonl"]["candidates"] if c["family"] == "extend")
    assert ext["validation"]["kill_rate"] == 1.0


def test_resume_skips_recorded_trajectories(run1, tmp_path):
    out, s = run1
    copy = tmp_path / "copy"; shutil.copytree(out, copy)
    rec = next(p for p in (copy / "records").glob("*.json") if json.loads(p.read_text())["origin"] == "pi/qa_sales.jsonl")
    rec.unlink()
    task = copy / "tasks" / s["tasks"][0]
    before = task.joinpath("task.toml").stat().st_mtime_ns
    assert build(copy) == s  # only the qa session is done again
    assert rec.exists() and task.joinpath("task.toml").stat().st_mtime_ns == before


def test_openai_teacher_against_a_scripted_server(tmp_path):
    from harness_adapters.scripted import ScriptedUpstream
    answer = {"contract": "f(x) in m.py", "stub": {"m.py": "def f(x):\n    raise NotImplementedError\n"},
              "tests": {"test_m.py": "from m import f\n\ndef test_f():\n    assert f(1) == 2\n"}}
    with ScriptedUpstream([{"text": "Here it is:\n```json\n" + json.dumps(answer) + "\n```"}]) as up:
        t = OpenAITeacher(up.url + "/v1", "big-teacher", record_to=tmp_path)
        a = t.write({"id": "build-x-1", "family": "build", "request": "r", "earlier_requests": [], "files": {"m.py": "..."}, "changed": []})
        sent = up.requests[-1]
    assert (a.contract, a.teacher) == ("f(x) in m.py", "big-teacher")
    assert sent["model"] == "big-teacher" and sent["temperature"] == 0 and "Request: r" in sent["messages"][1]["content"]
    assert RecordedTeacher(tmp_path).write({"id": "build-x-1"}).tests == a.tests  # a live run can be replayed


def test_cli_on_malformed_files(tmp_path, capsys):
    assert envs_cli(["build", str(DATA / "malformed"), str(tmp_path / "out"), "--recorded-teacher", str(TEACHER)]) == 0
    out = capsys.readouterr().out
    assert "trajectories in: 4 (malformed: 3, no work: 1)" in out and "| read: malformed trajectory | 3 |" in out
    assert "repaired on reading: 1 (old_version: 1)" in out  # ATIF-v1.2, read since #45


@pytest.mark.slow
def test_every_task_passes_the_trial_matrix_again(run1):
    out, s = run1
    for tid in s["tasks"]:
        c = check_task(out / "tasks" / tid)
        assert c.passed, (tid, c.reasons)


def _after(task):
    env = {p.relative_to(task.environment_dir).as_posix(): p.read_text() for p in task.environment_dir.rglob("*") if p.is_file()}
    files = task.solution_dir / "files"
    return env, {**env, **{p.relative_to(files).as_posix(): p.read_text() for p in files.rglob("*") if p.is_file()}}


@pytest.mark.slow
def test_kept_tests_kill_the_bugs_they_claim(run1, tmp_path):
    "Each mutant the validation says was killed, rebuilt from the task's own files, scores below 1 with the task's verifier."
    out, _ = run1
    for rec in records(out).values():
        for c in rec["candidates"]:
            if not c["kept"] or c["family"] not in ("build", "extend"): continue
            task = load_task(out / c["task"])
            before, after = _after(task)
            cand = Candidate(task.id, task.family, task.source, 0, "", "", before if task.family == "extend" else {}, after)
            ms = {m.id: m for m in mutants(after, mutation_paths(cand), 16, mutation_lines(cand))}
            claims = c["validation"]["mutants"]
            assert [m["id"] for m in claims] == sorted(ms, key=lambda k: int(k[1:]))
            kept = {t for t, v in c["validation"]["verdicts"].items() if v == "kept"}
            assert kept == {t for m in claims for t in m["killed_by"]}  # every kept test kills something
            for m in claims:
                if not m["killed_by"]: continue
                ws = tmp_path / f"{task.id}-{m['id']}"
                for p, text in {**after, m["path"]: ms[m["id"]].text}.items():
                    (ws / p).parent.mkdir(parents=True, exist_ok=True); (ws / p).write_text(text)
                v = run_verifier(task, ws)
                assert v.ok and v.reward < 1.0, (task.id, m, v.output_tail[-500:])


@pytest.mark.slow
def test_same_input_gives_byte_identical_folders(run1, tmp_path):
    out, s = run1
    s2 = build(tmp_path / "run2")
    assert s2 == s
    files = lambda root: {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "tasks").rglob("*") if p.is_file()}
    a, b = files(out), files(tmp_path / "run2")
    assert a.keys() == b.keys() and all(a[k] == b[k] for k in a)


@pytest.mark.slow
def test_score_sets_the_label(run1, tmp_path):
    "Scoring with real pi sessions against a scripted model that never solves anything: solve rate 0, label hard."
    from test_rollouts import scripted
    out, s = run1
    one = tmp_path / "one"; (one / "tasks").mkdir(parents=True)
    qa = next(t for t in s["tasks"] if t.startswith("qa-"))
    shutil.copytree(out / "tasks" / qa, one / "tasks" / qa)
    up, px = scripted("pi", [], default={"text": "I do not know."}, steps=2)
    try: rates = score_tasks(one, "pi", px.url, "scripted", attempts=2, preset="tiny", workers=2)
    finally: px.stop(); up.__exit__()
    assert rates[qa]["solve_rate"] == 0.0 and rates[qa]["samples"] == 2
    t = load_task(one / "tasks" / qa)
    assert (t.difficulty, t.reference_solve_rate, t.reference["harness"], "unscored" in t.tags) == ("hard", 0.0, "pi", False)
    assert tomllib.loads((t.path / "task.toml").read_text())["metadata"]["content_hash"] == folder_hash(t.path)
