"""The committed runs under `runs/` against the current code: each is a read-only record that training refuses to
write into, and each resumes, copied elsewhere, under the settings it recorded (a folder written by an older version
must not be refused for a setting the code has since learned to resolve differently)."""
import json, shutil
from pathlib import Path
import pytest

from harness_adapters.cards import file_sha256
from harness_adapters.checkpoints import read_checkpoint
from harness_adapters.runs import RECORD, CommittedRun
from harness_adapters.training import RunConfig, open_run

ROOT = Path(__file__).resolve().parents[1]
TRAINING_RUNS = sorted(p.parent for p in (ROOT / "runs").rglob("config.json") if "config" in json.loads(p.read_text()))


def test_there_are_committed_runs():
    assert len(TRAINING_RUNS) >= 5, TRAINING_RUNS


@pytest.mark.parametrize("run", TRAINING_RUNS, ids=lambda p: str(p.relative_to(ROOT / "runs")))
def test_committed_run_is_a_record(run):
    "Training into a committed run (or a folder inside one) is refused, and nothing in it changes."
    assert (run / RECORD).exists() or (run.parent / RECORD).exists(), f"{run} has no {RECORD}"
    before = (run / "config.json").read_bytes()
    identity = json.loads(before)["config"]
    with pytest.raises(CommittedRun, match="read-only records"):
        open_run(RunConfig(**identity, run_dir=str(run)))
    assert (run / "config.json").read_bytes() == before


@pytest.mark.parametrize("run", TRAINING_RUNS, ids=lambda p: str(p.relative_to(ROOT / "runs")))
def test_committed_run_resumes_with_current_code(run, tmp_path):
    "A copy of the run, without its RECORD.md, resumes under its recorded settings, keeping its run id."
    copy = tmp_path / run.name
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns(RECORD))
    meta = json.loads((run / "config.json").read_text())
    got = open_run(RunConfig(**meta["config"], steps=meta["steps"] + 1, run_dir=str(copy)))
    assert got["run_id"] == meta["run_id"] and got["steps"] == meta["steps"] + 1


def test_old_main_job_folder_resumes_under_the_main_command(tmp_path):
    """`runs/train-tiny` was written when the main job recorded its token budget as 2048; the main command now leaves
    it to the harness (pi: 2048). The same training, so a copy resumes under the main command's parameters."""
    copy = tmp_path / "train-tiny"
    shutil.copytree(ROOT / "runs" / "train-tiny", copy, ignore=shutil.ignore_patterns(RECORD))
    assert json.loads((copy / "config.json").read_text())["config"]["token_budget"] == 2048
    assert RunConfig(model="tiny").token_budget is None
    open_run(RunConfig(model="tiny", steps=3, run_dir=str(copy)))


def _tracked(pattern: str) -> list[str]:
    "Paths of the files git tracks that match `pattern` (what a clone of this checkout has)."
    import subprocess
    return subprocess.run(["git", "ls-files", "--", pattern], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


EVALS = sorted((ROOT / p).parent for p in _tracked("runs/*/eval*/sessions.jsonl"))


def test_there_are_committed_evaluations():
    assert len(EVALS) >= 5, EVALS


@pytest.mark.parametrize("ev", EVALS, ids=lambda p: str(p.relative_to(ROOT / "runs")))
def test_committed_evaluation_recomputes_to_its_tables(ev, tmp_path):
    """`harness-adapters eval --tables-only` on a committed evaluation, with only the files a clone has, gives back its
    committed tables and status byte for byte: the README's figures come from `sessions.jsonl` and the plan in
    `config.json` (without the plan, the status cannot say FINISHED), and reproducing them leaves the tree clean."""
    from harness_adapters.evaltables import recompute_tables
    names = [Path(p).name for p in _tracked(str(ev.relative_to(ROOT)) + "/*")]
    assert "config.json" in names, f"{ev}: its config.json (the plan) is not committed"
    copy = tmp_path / ev.name; copy.mkdir()
    for n in names: shutil.copy(ev / n, copy / n)
    recompute_tables(copy)
    for n in ("status.json", "comparison.md", "comparison.csv", "summary.csv"):
        assert (copy / n).read_bytes() == (ev / n).read_bytes(), f"{ev.name}/{n} differs when recomputed"


KEPT = sorted((ROOT / "runs").glob("**/kept/step-*"))


def test_there_are_kept_adapters():
    assert KEPT, "no runs/**/kept/step-<n>/ (harness-adapters keep)"


@pytest.mark.parametrize("kept", KEPT, ids=lambda p: str(p.relative_to(ROOT / "runs")))
def test_kept_adapter_is_the_one_its_card_names(kept):
    "A kept adapter reads as a checkpoint of its run, and its weights are those its card's sha256 names (the trained ones)."
    c = read_checkpoint(kept)
    assert c.arm == f"{kept.parent.parent.name}/{kept.name}" and c.preset and c.harness, c
    assert file_sha256(kept / "adapter_model.safetensors") == c.card["adapter"]["sha256"], f"{kept}: not the adapter its card names"
    if (kept / "trainer_state.json").exists():   # kept with --state: a run resumes from it (`harness-adapters restore`)
        assert json.loads((kept / "trainer_state.json").read_text())["global_step"] == c.step, f"{kept}: another step's state"
        assert (kept / "optimizer.pt").is_file(), f"{kept}: training state without the optimizer's"
