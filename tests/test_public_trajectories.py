"""The corpus of published trajectories (`tests/data/public_trajectories/`, issue #45): ATIF files and raw Claude Code
and Codex session logs, each file as its SOURCES.md records it, the committed SURVEY.md what today's reader and builder
make of them, every trajectory read (the ATIF leniently; none refused unless it truly lacks a fact the builder needs),
and the same output run to run."""
import hashlib, json, os, re, subprocess, sys
from collections import Counter
from pathlib import Path
from harness_adapters.envbuilder import BuildConfig, build_envs
from harness_adapters.envfacts import read_sources, replay

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


# Trajectories of the corpus the reader may still refuse, each with the fact it truly lacks (the reader's words).
# None: since the lenient reader (#45) every file reads; one that stops reading must be added here with its reason.
TRULY_LACKING: dict[str, str] = {}

# The repairs reading the corpus needs, and for how many trajectories (SURVEY.md lists them file by file).
# The raw session logs' readers record what they assumed the same way (`envfacts.LOG_NOTES`).
REPAIRED = {"claude_code_log": 4, "codex_log": 3, "claude_bash_exit": 2, "content_object": 2, "no_agent": 2, "old_version": 2,
            "results_apart": 2, "agent_model": 1, "chat_message": 1, "final_metrics": 1, "null_message": 1, "resent_chat": 1,
            "step_model_name": 1, "tool_call_names": 1, "tool_result_object": 1, "version_spelling": 1}
RAW_LOGS = {"claude-code": 4, "codex": 3}  # the raw session logs of the corpus, by the reader that reads them (#45)


def build(out):
    return build_envs(CORPUS, BuildConfig(out, teacher=None, check=False), progress=False)


def test_every_trajectory_reads_unless_it_truly_lacks_a_fact(tmp_path):
    "No `malformed` drop on the corpus but for the trajectories listed in TRULY_LACKING, each for the reason given there."
    sources = list(read_sources(CORPUS))
    assert len(sources) == 38
    assert {s.origin: s.error for s in sources if s.error} == TRULY_LACKING
    s = build(tmp_path / "out")
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "out" / "records").glob("*.json"))]
    malformed = {r["origin"]: r["drops"][0]["detail"] for r in records if r["status"] == "malformed"}
    assert malformed == TRULY_LACKING
    assert (s["repaired"], s["repairs"]) == (15, REPAIRED)
    assert {r["origin"]: r.get("repairs") for r in records if r.get("repairs")} == {o.origin: o.repairs for o in sources if o.repairs}


def test_raw_session_logs_are_read_by_their_readers():
    "Each Claude Code and Codex log is known from its first lines and read whole as one trajectory, not as lines of ATIF."
    sources = [s for s in read_sources(CORPUS) if s.origin.split("/")[0] in RAW_LOGS]
    assert Counter(s.kind for s in sources) == Counter(RAW_LOGS)
    for s in sources:
        assert s.error is None and "#" not in s.origin and s.trajectory["agent"]["name"] == s.kind
        assert any(step["source"] == "user" for step in s.trajectory["steps"]), s.origin
        assert s.repairs and set(s.repairs) <= {"claude_code_log", "claude_bash_exit", "codex_log"}, s.repairs
    by = {s.origin: s for s in sources}
    # the Codex 0.125 excerpt: its test run fails, is patched, passes; each exit code from its `exec_command_end` event
    rp = replay(by["codex/codemie-code-rollout-019e1625-excerpt.jsonl"].trajectory)
    assert [(c.command.split(" -- ")[0], c.exit_code) for c in rp.commands] == [("npm test", 1), ("npm test", 0), ("npm test", 0)]
    assert [c.kind for c in rp.changes] == ["edit"] * 3  # three `apply_patch` updates
    # a Write that Claude Code refused is not replayed as a write
    rp = replay(by["claude-code/claude-code-viewer-1af7fc5e.jsonl"].trajectory)
    assert rp.ends[-1] == {} and rp.failures == ["step 6: write of /path/to/Demo/CLAUDE.md failed: its result is an error"]


def test_reading_and_building_twice_give_the_same_output(tmp_path):
    "The same files give the same sources, records and summary, byte for byte."
    def read():
        return [(s.key, s.origin, s.kind, s.error, s.repairs, json.dumps(s.trajectory, sort_keys=True)) for s in read_sources(CORPUS)]
    assert read() == read()
    s1, s2 = build(tmp_path / "a"), build(tmp_path / "b")
    files = lambda root: {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert s1 == s2 and files(tmp_path / "a") == files(tmp_path / "b")
