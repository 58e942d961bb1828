"""Integration tests for sandboxes and tasks: the sandbox's guarantees, the trial matrix on every shipped fixture
and on a sample of generated tasks, and the rejection of broken tasks with a reason. Runs in well under a minute."""
import json, os, shutil, time
from pathlib import Path

import pytest

from harness_adapters.sandbox import BubblewrapBackend, SandboxConfig, Limits, ToolNotFound, find_tool, processes_matching
from harness_adapters.tasks import load_task, find_task, list_tasks, split_leaks, fixtures_dir, TaskFormatError, heldout_split
from harness_adapters.verifiers import check_task, run_verifier, tasks_cli
from harness_adapters import datatasks, tinytasks

def _no_bwrap() -> str:
    "Why no sandbox can be made here (empty when bwrap is found: its pinned wheel, or the system's)."
    try: find_tool("bwrap"); return ""
    except ToolNotFound as e: return str(e)


pytestmark = pytest.mark.skipif(bool(_no_bwrap()), reason=_no_bwrap() or "bwrap found")
FIXTURES = sorted(p for p in fixtures_dir().iterdir() if (p / "task.toml").exists())


@pytest.fixture(scope="module")
def backend():
    return BubblewrapBackend()


# ---------------------------------------------------------------- sandbox properties

def test_nothing_written_outside_workspace(backend, tmp_path):
    marker = f"outside-{os.getpid()}"
    with backend.create() as sb:
        r = sb.run(f"for d in / /usr /etc /root /home /var /tmp {tmp_path}; do echo x > $d/{marker} 2>/dev/null; done;"
                   f"echo inside > /workspace/{marker}")
        assert r.ok, r
        assert (sb.workspace / marker).read_text() == "inside\n"
    assert not any(Path(d, marker).exists() for d in ["/", "/usr", "/etc", "/root", "/home", "/var", "/tmp", tmp_path])


def test_no_hf_token_visible(backend, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_should_never_leak")
    monkeypatch.setenv("HUGGING_FACE_HUB_TOKEN", "hf_should_never_leak")
    with backend.create() as sb:
        r = sb.run("env; cat /proc/1/environ 2>/dev/null; ls -a ~ /root 2>&1")
        assert "hf_should_never_leak" not in r.stdout_tail + r.stderr_tail and "TOKEN" not in r.stdout_tail
    before = set(backend.base.iterdir())
    with pytest.raises(ValueError, match="credential"):
        backend.create(SandboxConfig(env={"HF_TOKEN": "x"}, allow_env=("HF_TOKEN",)))
    assert set(backend.base.iterdir()) == before  # refused before anything was made


def test_timeout_kills_everything(backend):
    with backend.create() as sb:
        r = sb.run("(setsid nohup sleep 5151 >/dev/null 2>&1 &); (sleep 5152 &); sleep 5153", timeout_s=1)
    assert r.timed_out and r.wall_s < 5
    time.sleep(0.2)
    assert processes_matching("sleep 515") == []


def test_workspace_removed_after(backend, tmp_path):
    (tmp_path / "seed.txt").write_text("seed")
    sb = backend.create(SandboxConfig(workspace_from=tmp_path, rw_mounts={"/logs": None}))
    assert sb.run("cat seed.txt > copy.txt && echo log > /logs/l.txt").ok
    root = sb.root
    assert (sb.workspace / "copy.txt").read_text() == "seed" and (tmp_path / "seed.txt").exists()
    sb.close()
    assert not root.exists() and not (tmp_path / "copy.txt").exists()


def test_limits(backend):
    with backend.create(SandboxConfig(limits=Limits(file_size_mb=1))) as sb:
        sb.run("head -c 3000000 /dev/zero > big")
        assert (sb.workspace / "big").stat().st_size == 1024 * 1024


# ---------------------------------------------------------------- the trial matrix on shipped and generated tasks

@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_passes_trial_matrix(path):
    c = check_task(path)
    assert c.passed, c.reasons
    assert [t.reward for t in c.trials] == [1.0, 1.0] + [0.0] * 7  # oracle twice; nothing, stub, tamper, 4 adversaries


def test_fixture_families():
    tasks = [load_task(p) for p in FIXTURES]
    assert {t.family for t in tasks} >= {"repair", "build"} and len(tasks) >= 3


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    data = datatasks.build_tasks(root / "data", ["iris", "grunfeld"])
    tiny = tinytasks.build_tasks(root / "tiny", per_cell=1)
    return root, data, tiny


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_data_sample_passes_trial_matrix(generated, level):
    root, data, _ = generated
    tid = next(m["id"] for m in data if m["level"] == level and "grunfeld" in m["id"])
    c = check_task(root / "data" / tid)
    assert c.passed, (tid, c.reasons)


def test_tiny_sample_passes_trial_matrix(generated):
    root, _, tiny = generated
    for tid in ("tiny-arith-hard-00", "tiny-lookup-medium-00"):
        c = check_task(root / "tiny" / tid)
        assert c.passed, (tid, c.reasons)


def test_data_generator_size_and_split(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_ADAPTERS_CACHE", str(tmp_path))
    folder = datatasks.generate()
    man = [json.loads(l) for l in (folder / "manifest.jsonl").read_text().splitlines()]
    assert len(man) >= 300 and {m["level"] for m in man} == {"easy", "medium", "hard"}
    held = [m for m in man if m["split"] == "heldout"]
    assert 0.15 < len(held) / len(man) < 0.35
    tasks = [load_task(folder / m["id"]) for m in man]
    assert all(t.content == f"dataset:{t.tags[0]}" and t.split == heldout_split(t.content) for t in tasks)
    assert datatasks.generate() == folder  # cached: not rebuilt
    # the CLI sees them, filtered
    assert tasks_cli(["list", "--family", "data", "--split", "heldout"]) == 0
    assert {t.split for t in list_tasks(family="data", split="heldout")} == {"heldout"}
    assert find_task(held[0]["id"]).split == "heldout"


def test_no_heldout_task_shares_content_with_training():
    """Over every shipped task: no content key, instruction (as a bag of words) or environment file on both sides."""
    tasks = list_tasks()
    assert {t.split for t in tasks} == {"train", "heldout"} and len(tasks) > 500
    assert split_leaks(tasks) == []
    tiny = [t for t in tasks if t.source == "tiny"]
    assert len({t.content for t in tiny}) == len(tiny)  # no two tiny tasks are the same problem


# ---------------------------------------------------------------- broken tasks are rejected, with the reason

@pytest.fixture
def copy_fixture(tmp_path):
    def make(name="repair-median"):
        dest = tmp_path / name
        shutil.copytree(fixtures_dir() / name, dest)
        return dest
    return make


def test_rejects_oracle_that_does_not_solve(copy_fixture):
    p = copy_fixture()
    (p / "solution/solve.sh").write_text("#!/bin/bash\necho '# looked at it' >> /workspace/stats.py\n")
    c = check_task(p)
    assert not c.passed and c.reasons[:2] == ["oracle scored 0, expected 1", "oracle_again scored 0, expected 1"]


@pytest.mark.parametrize("part", ["tests/test.sh", "solution/solve.sh", "instruction.md", "task.toml", "environment"])
def test_rejects_missing_part(copy_fixture, part):
    p = copy_fixture()
    target = p / part
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    with pytest.raises(TaskFormatError, match=f"{part}/?: missing"):
        load_task(p)
    c = check_task(p)
    assert not c.passed and f"{part}" in c.reasons[0] and "missing" in c.reasons[0]
    assert tasks_cli(["check", str(p)]) == 1


def test_rejects_crashing_verifier(copy_fixture):
    p = copy_fixture()
    (p / "tests/test.sh").write_text("#!/bin/bash\nset -e\npython3 /tests/no_such_grader.py\n")
    t = load_task(p)
    v = run_verifier(t, t.environment_dir)
    assert v.reward is None and "wrote no /logs/verifier/reward.txt" in v.error and "no_such_grader.py" in v.error
    c = check_task(p)
    assert not c.passed and len(c.reasons) == len(c.trials) == 9 and all("verifier of repair-median" in r for r in c.reasons)


def test_rejects_verifier_that_trusts_the_workspace(copy_fixture):
    p = copy_fixture("build-roman")
    (p / "tests/test.sh").write_text("#!/bin/bash\nmkdir -p /logs/verifier\n"
                                     "if [ -f /workspace/tests/test.sh ]; then exec bash /workspace/tests/test.sh; fi\n"
                                     + (fixtures_dir() / "build-roman/tests/test.sh").read_text())
    c = check_task(p)
    assert not c.passed and c.reasons == ["tamper scored 1, expected 0"]


def test_cli_check_exit_status(copy_fixture, capsys):
    assert tasks_cli(["check", "repair-fizzbuzz"]) == 0
    assert "PASS repair-fizzbuzz" in capsys.readouterr().out
    assert tasks_cli(["check", "no-such-task-id"]) == 1
    assert "no task 'no-such-task-id'" in capsys.readouterr().out
