"""The corpus of published ATIF trajectories (`tests/data/public_trajectories/`, issue #45): each file as its
SOURCES.md records it, and the committed SURVEY.md what today's reader and builder make of them."""
import hashlib, os, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests/data/public_trajectories"


def test_every_file_is_recorded_with_its_sha256():
    "Every trajectory file has a SOURCES.md row whose sha256 is the file's (a file edited after copying is noticed)."
    sources = (CORPUS / "SOURCES.md").read_text()
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".jsonl"))
    assert len(files) >= 30 and len({p.parent.name for p in files}) >= 6
    missing = [p.relative_to(CORPUS).as_posix() for p in files if hashlib.sha256(p.read_bytes()).hexdigest() not in sources]
    assert not missing, f"no SOURCES.md row with these files' sha256: {missing}"


def test_survey_is_what_the_corpus_makes():
    "SURVEY.md is survey.py's output on the committed files (offline: no model, network or sandbox)."
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(CORPUS / "survey.py")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == (CORPUS / "SURVEY.md").read_text(), "SURVEY.md is stale: run survey.py again (its docstring says how)"
