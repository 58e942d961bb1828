"""What today's reader and builder make of the public corpus in this folder: ATIF files and raw Claude Code and Codex
session logs (issue #45).

Run from the repository root (no model, network or sandbox needed; about half a minute):

    PYTHONPATH=$PWD python tests/data/public_trajectories/survey.py > tests/data/public_trajectories/SURVEY.md

It reads every file with `harness_adapters.envfacts.read_sources` exactly as `harness-adapters envs build` would
(the lenient reader: `envfacts.lenient`'s declared repairs, each one recorded, then validation; a raw session log
through its reader, what it assumed recorded the same way, `envfacts.LOG_NOTES`),
then runs `harness_adapters.envbuilder.build_envs` on the same folder with no teacher and the trial matrix off
(`BuildConfig(out, teacher=None, check=False)`): screening, replay and the four rules run as in a real build; build
and extend candidates stop at "teacher: none configured", and repair/qa tasks are written but not checked (checking
needs a sandbox). Nothing here changes the code under test: it only reports. The output is deterministic.
"""
from __future__ import annotations
import json, re, shutil, sys, tempfile
from collections import Counter, defaultdict
from pathlib import Path

from atif import Agent, ObservationResult, Step, ToolCall, Trajectory
from harness_adapters.envbuilder import BuildConfig, build_envs, summary_table
from harness_adapters.envfacts import LOG_NOTES, REPAIRS, RAW_LOGS, classify, read_sources, replay

HERE = Path(__file__).resolve().parent


def raw_trajectories(logs: set[str]) -> dict[str, object]:
    "origin -> the raw JSON value, keyed the way `read_sources` names origins (`file#n` for lists and JSON lines); raw session logs (`logs`) left out."
    out = {}
    for path in sorted(HERE.rglob("*")):
        if path.suffix not in (".json", ".jsonl") or not path.is_file(): continue
        rel = path.relative_to(HERE).as_posix()
        if rel in logs: continue
        if path.suffix == ".json":
            try: d = json.loads(path.read_text(errors="replace"))
            except json.JSONDecodeError: out[rel] = None; continue
            if isinstance(d, list): out.update({f"{rel}#{i}": t for i, t in enumerate(d, 1)})
            else: out[rel] = d
        else:
            for n, line in enumerate((l for l in path.read_text(errors="replace").splitlines() if l.strip()), 1):
                try: out[f"{rel}#{n}"] = json.loads(line)
                except json.JSONDecodeError: out[f"{rel}#{n}"] = None
    return out


def reason_class(err: str | None) -> str:
    "The reader's error as a category: indexes and pydantic's union-branch names folded, so files can be counted by it."
    if not err: return "read OK"
    if err.startswith("schema_version"): return "unsupported " + err.split(" is not one of")[0]
    parts = []
    for piece in err.split("; "):
        piece = re.sub(r"\[\d+\]", "[*]", piece)
        piece = re.sub(r"\.(?:str|list\[function-after\[_check_payload\(\), ContentPart\]\])", "", piece)
        piece = re.sub(r"\.function-after\[[^\]]*\]", "", piece)
        if piece.startswith("lacks "):
            locs = dict.fromkeys(re.sub(r"\.(?:str|list\[function-after\[_check_payload\(\), ContentPart\]\])", "", l)
                                 for l in piece[6:].split(", "))
            parts.append("lacks " + ", ".join(locs))
        else: parts.append(piece)
    return "; ".join(dict.fromkeys(parts))


def _fields(model) -> set[str]: return set(model.model_fields)


def shape_notes(t) -> list[str]:
    "How the raw trajectory departs from ATIF as the `atif` models read it: the variants a lenient reader would meet."
    if not isinstance(t, dict): return ["not a JSON object"]
    notes = []
    v = t.get("schema_version")
    if v is None: notes.append("no schema_version")
    elif not str(v).startswith("ATIF-v"): notes.append(f"schema_version spelled {v!r}")
    if "agent" not in t: notes.append("no agent block")
    elif isinstance(t["agent"], dict):
        a = t["agent"]
        if "version" not in a: notes.append("agent without version")
        if "model_name" not in a: notes.append("agent without model_name")
        extra = sorted(set(a) - _fields(Agent))
        if extra: notes.append("agent has " + ", ".join(extra))
        if "\n" in str(a.get("version", "")): notes.append("agent.version is multi-line CLI output")
    if "session_id" not in t: notes.append("no session_id")
    extra = sorted(set(t) - _fields(Trajectory))
    if extra: notes.append("top level has " + ", ".join(extra))
    if t.get("subagent_trajectories"): notes.append("embedded subagent_trajectories")
    if t.get("continued_trajectory_ref"): notes.append("continued_trajectory_ref")
    steps = t.get("steps") if isinstance(t.get("steps"), list) else []
    if not steps: notes.append("no steps")
    kinds, step_extra, tc_extra, res_extra, sources, no_ts, content_kinds, obs_shapes = (
        Counter(), set(), set(), set(), Counter(), 0, Counter(), Counter())
    str_ids = obs_elsewhere = terminal_users = 0
    for s in steps:
        if not isinstance(s, dict): kinds["non-object step"] += 1; continue
        sources[s.get("source", "<none>")] += 1
        if isinstance(s.get("step_id"), str): str_ids += 1
        if s.get("observation") is not None and s.get("source") != "agent": obs_elsewhere += 1
        if s.get("source") == "user" and isinstance(s.get("message"), str) and s["message"].startswith("New Terminal Output"):
            terminal_users += 1
        if "timestamp" not in s: no_ts += 1
        m = s.get("message", "<absent>")
        if m == "<absent>": kinds["absent"] += 1
        elif m is None: kinds["null"] += 1
        elif isinstance(m, str): kinds["text"] += 1
        elif isinstance(m, list):
            kinds["content parts" if all(isinstance(p, dict) and "type" in p for p in m) else
                  "chat messages (role/content)" if all(isinstance(p, dict) and "role" in p for p in m) else "other list"] += 1
        elif isinstance(m, dict): kinds["chat message object (role/content)" if "role" in m else "object"] += 1
        step_extra |= set(s) - _fields(Step)
        for c in s.get("tool_calls") or []:
            if isinstance(c, dict): tc_extra |= set(c) - _fields(ToolCall)
        obs = s.get("observation")
        if isinstance(obs, dict):
            if "results" not in obs: obs_shapes["observation without results (" + ", ".join(sorted(obs)) + ")"] += 1
            for r in obs.get("results") or []:
                if not isinstance(r, dict): continue
                res_extra |= set(r) - _fields(ObservationResult)
                c = r.get("content")
                content_kinds["text" if isinstance(c, str) else "null" if c is None else
                              "content parts" if isinstance(c, list) and all(isinstance(p, dict) and "type" in p for p in c)
                              else type(c).__name__] += 1
        elif obs is not None: obs_shapes[f"observation is a {type(obs).__name__}"] += 1
    if str_ids: notes.append("step_id as a string")
    if obs_elsewhere: notes.append("observation on a system/user step (tool results apart from their calls)")
    if terminal_users: notes.append("terminal output as user steps ('New Terminal Output'), commands as JSON in the agent's text")
    odd_sources = sorted(k for k in sources if k not in ("system", "user", "agent"))
    if odd_sources: notes.append("step source " + ", ".join(map(str, odd_sources)))
    if sources and "user" not in sources: notes.append("no user step")
    if no_ts: notes.append("steps without timestamp (" + ("all" if no_ts == len(steps) else "some") + ")")
    notes += [f"message as {k}" for k in sorted(kinds) if k != "text"]
    if step_extra: notes.append("step has " + ", ".join(sorted(step_extra)))
    if tc_extra: notes.append("tool_call has " + ", ".join(sorted(tc_extra)))
    if res_extra: notes.append("observation result has " + ", ".join(sorted(res_extra)))
    odd_content = sorted(k for k in content_kinds if k != "text")
    if odd_content: notes.append("observation content as " + ", ".join(odd_content))
    notes += sorted(obs_shapes)
    return notes


def replay_view(t: dict) -> tuple[str, Counter]:
    "How the replay reads the trajectory's tool calls: requests, calls by action kind, exit codes known; the unread tool names."
    kinds, other = Counter(), Counter()
    for step in t.get("steps") or []:
        if step.get("source") != "agent": continue
        for call in step.get("tool_calls") or []:
            a = classify(call.get("function_name", ""), call.get("arguments"))
            kinds[a.kind] += 1
            if a.kind == "other": other[call.get("function_name", "")] += 1
    rp = replay(t)
    known = sum(c.exit_code is not None for c in rp.commands)
    calls = ", ".join(f"{kinds[k]} {k}" for k in ("write", "edit", "patch", "shell", "read", "other") if kinds[k]) or "no tool calls"
    failed = f"; {len(rp.failures)} failed write{'s' * (len(rp.failures) != 1)} skipped" if rp.failures else ""
    return f"{len(rp.requests)} req; {calls}; exit code known {known}/{len(rp.commands)}{failed}", other


def main() -> int:
    sources = list(read_sources(HERE))
    logs = {s.origin for s in sources if s.kind != "atif"}
    raw = raw_trajectories(logs)
    out = Path(tempfile.mkdtemp(prefix="survey-envs-"))
    try:
        summary = build_envs(HERE, BuildConfig(out, teacher=None, check=False), progress=False)
        records = {json.loads(p.read_text())["origin"]: json.loads(p.read_text()) for p in (out / "records").glob("*.json")}
    finally:
        shutil.rmtree(out, ignore_errors=True)

    files = sorted({s.origin.split("#")[0] for s in sources})
    print("# What today's reader makes of the public corpus\n")
    print(f"Generated by `survey.py` in this folder: {len(files)} files, {len(sources)} trajectories "
          f"({len({f.split('/')[0] for f in files})} producer folders), {len(logs)} of them raw session logs "
          f"({', '.join(f'{n} {RAW_LOGS[k]}' + 's' * (n != 1) for k, n in sorted(Counter(s.kind for s in sources if s.kind != 'atif').items()))}). "
          "Reader: `envfacts.read_sources` "
          "(`lenient`: the declared repairs of published shape variants, then `atif_problem`: the `atif` 1.8 pydantic "
          "models, `extra='forbid'`, versions ATIF-v1.2 to v1.8; a raw log through its reader, then the same check). "
          "Builder: `envbuilder.build_envs` with no teacher and the trial matrix off.\n")

    print("## Per trajectory\n")
    print("| file | producer | agent.name | declared version | reader | builder | replay (what the rules see) |")
    print("|---|---|---|---|---|---|---|")
    unread = Counter()
    for s in sources:
        t = raw.get(s.origin)
        name = t.get("agent", {}).get("name", "") if isinstance(t, dict) and isinstance(t.get("agent"), dict) else ""
        version = t.get("schema_version", "") if isinstance(t, dict) else ""
        if s.kind != "atif":  # a raw log: no declared ATIF version; what wrote it, as its reader found
            name = (s.trajectory or {}).get("agent", {}).get("name", "")
            version = f"{RAW_LOGS[s.kind]}" + (f" ({s.trajectory['agent']['version']})" if s.trajectory and s.trajectory["agent"].get("version") else "")
        reader = ("read OK" + (" after " + ", ".join(f"`{k}`" for k in s.repairs) if s.repairs else "")) if not s.error else (
            f"**{reason_class(s.error)}**" + (f" ({s.error[:160]}…)" if len(s.error) > 160 else ""))
        rec = records.get(s.origin, {})
        drops = Counter(d["reason"] for d in rec.get("drops", []) if d.get("stage") != "read")
        kept = [c["family"] for c in rec.get("candidates", []) if c.get("kept")]
        builder = rec.get("status", "?") + (f"; kept {', '.join(kept)}" if kept else "") + (
            "; " + ", ".join(f"{k}" + (f" ×{n}" if n > 1 else "") for k, n in sorted(drops.items())) if drops else "")
        view = ""
        if not s.error:
            view, other = replay_view(s.trajectory)
            unread.update({(n, s.origin.split("/")[0]): c for n, c in other.items()})
        print(f"| `{s.origin}` | {s.origin.split('/')[0]} | {name} | {version} | {reader} | {builder} | {view} |")

    print("\n## Reader outcome, by reason\n")
    print("| outcome | trajectories | examples |")
    print("|---|---:|---|")
    by = defaultdict(list)
    for s in sources: by[reason_class(s.error)].append(s.origin)
    for k, v in sorted(by.items(), key=lambda kv: (kv[0] != "read OK", -len(kv[1]), kv[0])):
        print(f"| {k} | {len(v)} | " + ", ".join(f"`{o}`" for o in v[:3]) + (" …" if len(v) > 3 else "") + " |")

    print("\n## Repairs on reading\n")
    print("`envfacts.REPAIRS`, in the order `lenient` applies them, and the trajectories each one was needed for. A repair "
          "changes only the shape; none supplies a command, an exit code, a file's text or a request. Then what the raw "
          "session logs' readers record (`envfacts.LOG_NOTES`): every raw log gets its reader's note, and one assumption "
          "supplies exit codes (`claude_bash_exit`: a Bash result Claude Code did not flag as an error is exit 0).\n")
    print("| repair | why | trajectories | examples |")
    print("|---|---|---:|---|")
    for name, why in [(r.name, r.why) for r in REPAIRS] + list(LOG_NOTES.items()):
        used = [s.origin for s in sources if name in s.repairs]
        print(f"| `{name}` | {why} | {len(used)} | " + ", ".join(f"`{o}`" for o in used[:3]) + (" …" if len(used) > 3 else "") + " |")
    print("\nWhat each repair assumed, trajectory by trajectory (`Source.repairs`, also in the builder's record):\n")
    print("| file | repair | what was assumed |")
    print("|---|---|---|")
    for s in sources:
        for k, note in s.repairs.items(): print(f"| `{s.origin}` | `{k}` | {note} |")

    print("\n## Still refused\n")
    refused = [s for s in sources if s.error]
    if not refused: print("None: every trajectory of the corpus reads.")
    else:
        print("| file | what it lacks |")
        print("|---|---|")
        for s in refused: print(f"| `{s.origin}` | {s.error[:300]} |")

    print("\n## Tool names the replay reads as `other` (ignored: no file or command facts)\n")
    print("| tool name | producer | calls |")
    print("|---|---|---:|")
    for (n, prod), c in sorted(unread.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"| `{n}` | {prod} | {c} |")

    print("\n## Shape variants (what a lenient reader would have to handle)\n")
    print("Departures from ATIF as the `atif` models read it, found in the raw JSON (whether or not the reader accepted it; "
          "raw session logs, which are not ATIF, left out).\n")
    print("| variant | trajectories | examples |")
    print("|---|---:|---|")
    variants = defaultdict(list)
    for o, t in raw.items():
        for n in shape_notes(t): variants[n].append(o)
    for k, v in sorted(variants.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"| {k} | {len(v)} | " + ", ".join(f"`{o}`" for o in v[:3]) + (" …" if len(v) > 3 else "") + " |")

    print("\n## Builder summary (`summary_table`; no teacher, no trial matrix)\n")
    print(summary_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
