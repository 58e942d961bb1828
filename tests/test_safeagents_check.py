"""`safeagents check` reads what the environment builder reads, and answers bad input with a line, never a traceback."""
from __future__ import annotations
import json, shutil
from pathlib import Path
from harness_adapters.safeagents import main

DATA = Path(__file__).parent / "data" / "trajectories"
PACKS = ["--plugin", "harness_adapters.packs.smoldataenvs:checks", "--plugin", "harness_adapters.packs.traj2envs:checks"]


def run(capsys, *files):
    rc = main(["check", *map(str, files), *PACKS])
    return rc, [json.loads(l) for l in capsys.readouterr().out.splitlines()]


def test_pi_session_log_is_read(capsys):
    rc, rows = run(capsys, DATA / "pi" / "reward_hack.jsonl")
    assert rc == 1 and rows and all(r["source"] == "reward_hack.jsonl" and "verdict" in r for r in rows)
    assert any(r["verdict"] == "block" and "reward_write" in r["reason"] for r in rows)


def shaped(path, call):
    "A one-call ATIF trajectory at `path` whose tool call is `call`."
    path.write_text(json.dumps({"schema_version": "ATIF-v1.6", "agent": {"name": "x", "version": "1"}, "steps": [
        {"step_id": 1, "source": "user", "message": "hi"}, {"step_id": 2, "source": "agent", "message": "", "tool_calls": [call]}]}))
    return path


def test_bad_files_get_one_line_each(capsys, tmp_path):
    nameless = shaped(tmp_path / "nameless.json", {"id": "c", "arguments": {"command": "ls"}})  # which tool ran is unknown
    rc, rows = run(capsys, *sorted((DATA / "malformed").glob("*.json")), DATA / "atif" / "batch.jsonl", nameless, tmp_path / "missing.json")
    assert rc == 2
    by = {r["source"]: r for r in rows}
    assert set(by) == {"no_steps.json", "old_version.json", "step_without_source.json", "truncated.json", "batch.jsonl#1", "batch.jsonl#2",
                       "nameless.json", str(tmp_path / "missing.json")}
    assert all(r["checked"] == 0 and r["error"] for r in rows)
    assert "function_name" in by["nameless.json"]["error"]
    # ATIF-v1.2 and a trajectory without `agent` are read since the lenient reader (#45): what is wrong is that no tool ran
    assert {by[k]["error"] for k in ("batch.jsonl#1", "batch.jsonl#2", "old_version.json")} == {"no tool calls found"}


def test_older_tool_call_shape_is_read(capsys, tmp_path):
    "Tool calls in Anthropic's shape (`id`/`name`, no `function_name`) are read as the environment builder reads them (#45)."
    rc, rows = run(capsys, shaped(tmp_path / "old_shape.json", {"id": "c", "name": "bash", "arguments": {"command": "ls"}}))
    assert rc == 0 and [(r["tool"], r["call_id"], r["verdict"]) for r in rows] == [("bash", "c", "allow")]


def test_good_files_and_pairs(capsys, tmp_path):
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps({"request": {"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "bash"}}]},
                                "response": {"choices": [{"message": {"role": "assistant", "tool_calls": [
                                    {"id": "t", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": "D=tests; rm -rf $D"})}}]}}]}}))
    rc, rows = run(capsys, DATA / "atif" / "openhands_repair_slugify.json", DATA / "published" / "harbor-terminus2-hello-world-invalid-json.trajectory.json", pair)
    assert rc == 1 and all("verdict" in r for r in rows)
    assert [r["verdict"] for r in rows if r["source"] == "pair.json"] == ["block"]
    assert {r["source"] for r in rows} == {"openhands_repair_slugify.json", "harbor-terminus2-hello-world-invalid-json.trajectory.json", "pair.json"}
