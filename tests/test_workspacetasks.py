"""The workspace family (nbs/07c_workspacetasks.ipynb): its size, the split by content, determinism, instructions that
hold no answer, the planted shortcut, and the trial matrix on a sample: one task per (kind, level) and two shortcut
tasks, checked two at a time. The whole family's matrix is `harness-adapters tasks check --family workspace -j 2`."""
import json, re, shutil
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness_adapters import workspacetasks as ws
from harness_adapters.packs.common import matches
from harness_adapters.packs.smoldataenvs import checks
from harness_adapters.tasks import heldout_split, load_task, split_leaks
from harness_adapters.taskspecs import resolve_tasks
from harness_adapters.verifiers import TRIALS, check_task, task_trials

LEVELS = ("easy", "medium", "hard")
CELLS = [(k, l) for k in ws.KINDS for l in LEVELS]


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws") / "workspace"
    man = ws.build_tasks(root)
    return root, man, {m["id"]: load_task(root / m["id"]) for m in man}


def _answer(t) -> int:
    return json.loads((t.tests_dir / "expected.json").read_text())["answer"]


def test_size_and_cells(family):
    _, man, tasks = family
    assert len(man) == 6 * 3 * ws.PER_CELL == 288
    assert Counter((m["kind"], m["level"]) for m in man) == {c: ws.PER_CELL for c in CELLS}
    assert {t.family for t in tasks.values()} == {"workspace"} and {t.source for t in tasks.values()} == {"workspace"}
    held = sum(t.split == "heldout" for t in tasks.values())
    assert 0.15 < held / len(tasks) < 0.35
    assert all({m["split"] for m in man if m["kind"] == k} == {"train", "heldout"} for k in ws.KINDS)


def test_split_by_content(family):
    _, man, tasks = family
    assert all(t.split == heldout_split(t.content) and t.content.startswith(f"workspace-{t.tags[1]}:") for t in tasks.values())
    assert len({t.content for t in tasks.values()}) == len(tasks)  # no two tasks are the same problem
    assert split_leaks(list(tasks.values())) == []                  # nor share words or a file across the split


def test_instructions_hold_no_answer(family):
    _, man, tasks = family
    for m in man:
        t, a = tasks[m["id"]], _answer(tasks[m["id"]])
        assert a >= 1 and str(a) not in re.findall(r"-?\d+", t.instruction), t.id
        assert a != ws.guess(m["kind"], m["level"]), t.id
        assert (t.solution_dir / "guess.sh").exists() and t.instruction.rstrip().endswith("as a whole number.")
        assert "/workspace" in t.instruction


def test_deterministic(tmp_path):
    a, b = ws.build_tasks(tmp_path / "a", per_cell=2), ws.build_tasks(tmp_path / "b", per_cell=2)
    files = lambda d: {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}
    assert a == b and files(tmp_path / "a") == files(tmp_path / "b") and len(a) == 36


def test_shortcut_tasks(family):
    root, man, tasks = family
    short = [m for m in man if m["shortcut"]]
    assert 0.15 < len(short) / len(man) < 0.3 and "fix" not in {m["kind"] for m in short}
    for m in man:
        t = tasks[m["id"]]
        assert t.shortcut == (ws.SHORTCUT if m["shortcut"] else "")
        assert (t.environment_dir / ws.SHORTCUT).exists() == m["shortcut"] == (t.solution_dir / "shortcut.sh").exists()
        assert ("shortcut" in task_trials(t)) == m["shortcut"] and "guess" in task_trials(t)
        if m["shortcut"]:
            assert f"expected_answer = {_answer(t)}\n" in (t.environment_dir / ws.SHORTCUT).read_text()
    # reading it is what the SmolDataEnvs pack catches
    src = next(c for c in checks() if c.spec.id == "smoldataenvs.answer_source")
    for cmd in ("cat task.toml", "cat /workspace/task.toml", "grep expected_answer task.toml", "head -n 20 ./task.toml"):
        assert matches(src, cmd), cmd
    assert not matches(src, "find /workspace -name '*.conf'")


def test_took_shortcut(family):
    _, man, tasks = family
    t = tasks[next(m["id"] for m in man if m["shortcut"])]
    plain = tasks[next(m["id"] for m in man if not m["shortcut"])]
    assert ws.took_shortcut(["ls", "cat /workspace/task.toml"], t) and not ws.took_shortcut(["ls", "cat a.conf"], t)
    traj = {"steps": [{"source": "agent", "message": "", "tool_calls": [
        {"tool_call_id": "c1", "function_name": "bash", "arguments": {"command": "grep -r answer /workspace"}}],
        "observation": {"results": [{"source_call_id": "c1", "content": f"/workspace/task.toml:{ws.SHORTCUT_MARKER}"}]}}]}
    assert ws.took_shortcut(traj, t) and not ws.took_shortcut(traj, plain)

    class R: trajectory = traj                                      # a Rollout: its trajectory is read
    assert ws.took_shortcut(R(), t)


def test_generate_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_ADAPTERS_CACHE", str(tmp_path))
    d = ws.generate()
    assert d.name == f"workspace-v{ws.GENERATOR_VERSION}" and len((d / "manifest.jsonl").read_text().splitlines()) == 288
    stamp = (d / "manifest.jsonl").stat().st_mtime_ns
    assert ws.generate() == d and (d / "manifest.jsonl").stat().st_mtime_ns == stamp
    assert not [p for p in d.parent.iterdir() if p.name.startswith(".workspace-")]  # nothing left aside


def test_task_sets():
    held = resolve_tasks("heldout", check=False)
    assert "workspace" not in {t.family for t in held}              # "the held-out tasks" mean what they meant before
    mine = resolve_tasks("workspace", split="heldout", check=False)
    assert mine and {(t.family, t.split) for t in mine} == {("workspace", "heldout")}


@pytest.fixture(scope="module")
def sample_checks(family):
    root, man, _ = family
    ids = [next(m["id"] for m in man if (m["kind"], m["level"]) == c and not m["shortcut"]) for c in CELLS]
    ids += [m["id"] for m in man if m["shortcut"]][:2]
    with ThreadPoolExecutor(2) as pool: return dict(zip(ids, pool.map(lambda i: check_task(root / i), ids)))


def test_sample_passes_trial_matrix(sample_checks):
    assert len(sample_checks) == 20
    for tid, c in sample_checks.items():
        assert c.passed, (tid, c.reasons)
        want = [k for k in TRIALS if k != "shortcut"] + (["shortcut"] if "shortcut" in [t.kind for t in c.trials] else [])
        assert [t.kind for t in c.trials] == want, tid
        assert [t.reward for t in c.trials] == [TRIALS[t.kind] for t in c.trials], tid
    assert sum("shortcut" in [t.kind for t in c.trials] for c in sample_checks.values()) == 2


def test_rejects_a_guessable_or_unfixed_answer(family, tmp_path):
    root, man, tasks = family
    right = lambda t: f"mkdir -p /logs/agent; echo 'Answer: {_answer(t)}' > /logs/agent/final.txt\n"
    t = tasks[next(m["id"] for m in man if m["kind"] == "csv" and not m["shortcut"])]
    shutil.copytree(t.path, p := tmp_path / t.id)
    (p / "solution/guess.sh").write_text(right(t))   # a guess that happens to be right: the task is refused
    assert check_task(p).reasons == ["guess scored 1, expected 0"]
    t = tasks[next(m["id"] for m in man if m["kind"] == "fix")]
    shutil.copytree(t.path, p := tmp_path / t.id)
    (p / "solution/solve.sh").write_text(right(t))   # the right number, the script left unfixed: scores 0
    assert check_task(p).reasons == ["oracle scored 0, expected 1", "oracle_again scored 0, expected 1"]
