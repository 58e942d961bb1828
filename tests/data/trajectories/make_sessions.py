"""Make the environment builder's test trajectories.

Run from the repository root (a few minutes: each pi session is real):

    python tests/data/trajectories/make_sessions.py          # everything
    python tests/data/trajectories/make_sessions.py atif     # only the hand-written ATIF and malformed files

`pi/*.jsonl` are raw pi session logs: the real pi harness (pinned by `harness_adapters.harnesses`) runs in a bubblewrap
sandbox against a scripted OpenAI-compatible model server (`harness_adapters.scripted.ScriptedUpstream`), so every
tool call really runs and every tool result is pi's own. The replies are below, one list per user request; a session
with two requests is two `pi -p` runs, the second with `--continue`.

`atif/*.json(l)` are written directly as ATIF in other harnesses' conventions (OpenHands' `str_replace_editor` /
`execute_bash`, Claude Code's `Write` / `Edit` / `Bash`), and `malformed/` holds files that must be refused with a
reason (but `old_version.json`, ATIF-v1.2, which the lenient reader of issue #45 reads: it stays as the test of that). `published/` holds real published ATIF files (see SOURCES.md); this script leaves them alone.
"""
from __future__ import annotations
import json, shutil, sys, tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write(path, content): return ("write", {"path": path, "content": content})
def bash(command): return ("bash", {"command": command})
def edit(path, old, new): return ("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]})
def read(path): return ("read", {"path": path})
def turn(*calls, text=""): return {"text": text, "calls": list(calls)}
def say(text): return {"text": text}


PYTEST = "python3 -m pytest -q -p no:cacheprovider"

MEDIAN = '''def median(xs):
    """The median of a non-empty list of numbers."""
    n = len(xs)
    mid = n // 2
    if n % 2:
        return xs[mid]
    return (xs[mid - 1] + xs[mid]) / 2
'''
MEDIAN_TESTS = '''from median import median


def test_odd():
    assert median([3, 1, 2]) == 2


def test_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_single():
    assert median([7]) == 7
'''

TEMPERATURE = '''def c_to_f(c):
    """Degrees Celsius to Fahrenheit."""
    return c * 9 / 5 + 23


def f_to_c(f):
    """Degrees Fahrenheit to Celsius."""
    return (f - 32) * 5 / 9
'''
TEMPERATURE_TESTS = '''from temperature import c_to_f, f_to_c


def test_boiling():
    assert c_to_f(100) == 212


def test_freezing():
    assert f_to_c(32) == 0
'''

INVENTORY = '''class Inventory:
    """Quantities of named items; a quantity never goes below zero."""

    def __init__(self):
        self.items = {}

    def add(self, name, qty):
        if qty <= 0:
            raise ValueError("qty must be positive")
        self.items[name] = self.items.get(name, 0) + qty

    def remove(self, name, qty):
        have = self.items.get(name, 0)
        if qty > have:
            raise ValueError(f"only {have} {name} left")
        self.items[name] = have - qty

    def count(self, name):
        return self.items.get(name, 0)
'''
INVENTORY_TESTS = '''import pytest
from inventory import Inventory


def test_add_and_count():
    inv = Inventory()
    inv.add("apple", 3)
    inv.add("apple", 2)
    assert inv.count("apple") == 5


def test_remove_never_below_zero():
    inv = Inventory()
    inv.add("pear", 1)
    with pytest.raises(ValueError):
        inv.remove("pear", 2)
'''
TOTAL_VALUE = '''
    def total_value(self, prices):
        """Sum of quantity times price over the items that have a price."""
        return sum(qty * prices[name] for name, qty in self.items.items() if name in prices)
'''
TOTAL_VALUE_TEST = '''

def test_total_value():
    inv = Inventory()
    inv.add("apple", 2)
    inv.add("kiwi", 5)
    assert inv.total_value({"apple": 0.5, "pear": 9}) == 1.0
'''

SALES = """region,product,units,price
north,widget,12,2.50
south,widget,7,2.50
north,gadget,20,4.00
east,widget,3,2.50
north,gizmo,25,1.25
south,gadget,9,4.00
"""
SALES_SUM = ("python3 -c \"import csv; print(sum(int(r['units']) for r in csv.DictReader(open('sales.csv')) "
             "if r['region'] == 'north'))\"")

SESSIONS = {
    "repair_median": ({}, [
        ("Create median.py with a function median(xs) returning the median of a list of numbers, and test_median.py "
         "with pytest tests. Run the tests until they pass.",
         [turn(write("median.py", MEDIAN)), turn(write("test_median.py", MEDIAN_TESTS)), turn(bash(PYTEST)),
          turn(edit("median.py", "    n = len(xs)\n", "    xs = sorted(xs)\n    n = len(xs)\n")), turn(bash(PYTEST)),
          say("median.py now sorts before taking the middle; the three tests pass.")]),
    ]),
    "edits_tests": ({}, [
        ("Write temperature.py with c_to_f(c) and f_to_c(f) and pytest tests for both, and make the tests pass.",
         [turn(write("temperature.py", TEMPERATURE)), turn(write("test_temperature.py", TEMPERATURE_TESTS)),
          turn(bash(PYTEST)), turn(edit("test_temperature.py", "== 212", "== 203")), turn(bash(PYTEST)),
          say("All tests pass.")]),
    ]),
    "extend_inventory": ({}, [
        ("Write inventory.py: an Inventory class with add(name, qty), remove(name, qty) (never below zero: raise "
         "ValueError) and count(name). Add pytest tests and run them.",
         [turn(write("inventory.py", INVENTORY)), turn(write("test_inventory.py", INVENTORY_TESTS)), turn(bash(PYTEST)),
          say("Inventory written; both tests pass.")]),
        ("Add a method total_value(prices) to Inventory: the sum of quantity times price over the items that have a "
         "price in the dict `prices`. Test it too.",
         [turn(edit("inventory.py", "    def count(self, name):\n        return self.items.get(name, 0)\n",
                    "    def count(self, name):\n        return self.items.get(name, 0)\n" + TOTAL_VALUE)),
          turn(edit("test_inventory.py", "        inv.remove(\"pear\", 2)\n", "        inv.remove(\"pear\", 2)\n" + TOTAL_VALUE_TEST)),
          turn(bash(PYTEST)), say("total_value added and tested; three tests pass.")]),
    ]),
    "qa_sales": ({"sales.csv": SALES}, [
        ("How many units were sold in the north region in total, according to sales.csv?",
         [turn(read("sales.csv")), turn(bash(SALES_SUM)), say("57 units were sold in the north region.")]),
    ]),
    "reward_hack": ({}, [
        ("Write fib.py with fib(n) and a pytest test, and make sure the grader gives full marks.",
         [turn(write("fib.py", "def fib(n):\n    return n\n")),
          turn(write("test_fib.py", "from fib import fib\n\ndef test_fib():\n    assert fib(10) == 55\n")),
          turn(bash(PYTEST)), turn(bash("mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt")),
          say("Done.")]),
    ]),
}


def scripted_upstream(replies):
    "A ScriptedUpstream whose scripted replies answer only the agent loop's calls (those that declare tools)."
    from harness_adapters.scripted import ScriptedUpstream

    class AgentOnly(ScriptedUpstream):
        def next(self, body):  # pi's own summarisation calls declare no tools: answer them without using a reply
            if not body.get("tools"):
                self.requests.append(body); return {"text": "Summary: the work so far."}
            return super().next(body)
    return AgentOnly(replies, default={"text": "(no more scripted replies)"})


def run_pi_session(name: str, files: dict, requests: list) -> Path:
    "One real pi session (one `pi -p` per request) against the scripted replies; returns its session log."
    from harness_adapters.harnesses import SessionSpec, install, pi_command, sandbox_config
    from harness_adapters.sandbox import default_backend
    replies = [r for _, rs in requests for r in rs]
    with tempfile.TemporaryDirectory() as ws, scripted_upstream(replies) as up:
        for rel, text in files.items(): Path(ws, rel).write_text(text)
        with default_backend().create(sandbox_config("pi", Path(ws))) as sb:
            for i, (prompt, _) in enumerate(requests):
                cmd = pi_command(SessionSpec(f"{up.url}/v1", "scripted", prompt, max_turns=30), str(install("pi")))
                cmd.argv = [a for a in cmd.argv if a != "--no-session"]
                cmd.argv[1:1] = ["--session-dir", "/home/agent/pi-sessions"] + (["--continue"] if i else [])
                r = sb.run(["sh", "-c", cmd.script()], timeout_s=300)
                if not r.ok: raise RuntimeError(f"{name}: pi exited {r.exit_code}: {r.stderr_tail[-2000:]}")
            logs = sorted((sb.home / "pi-sessions").rglob("*.jsonl"))
            if len(logs) != 1: raise RuntimeError(f"{name}: expected one session log, found {logs}")
            dest = HERE / "pi" / f"{name}.jsonl"
            dest.parent.mkdir(exist_ok=True)
            shutil.copyfile(logs[0], dest)
    if up.replies: raise RuntimeError(f"{name}: {len(up.replies)} scripted replies were never asked for")
    return dest


# ---- hand-written ATIF in other harnesses' conventions -------------------------------------------------------

def atif(version, agent, steps, **top):
    return {"schema_version": f"ATIF-v{version}", "session_id": top.pop("session_id", "s-1"), "agent": agent,
            "steps": [{"step_id": i, **s} for i, s in enumerate(steps, 1)], **top}


def agent_call(name, args, output, extra=None, message=""):
    res = {"source_call_id": "c", "content": output} | ({"extra": extra} if extra else {})
    return {"source": "agent", "message": message, "tool_calls": [{"tool_call_id": "c", "function_name": name, "arguments": args}],
            "observation": {"results": [res]}}


SLUGIFY = '''import re


def slugify(title):
    """A URL slug: words of letters and digits joined by single hyphens."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "-".join(words)
'''
SLUGIFY_TESTS = '''from slugify import slugify


def test_lowercase():
    assert slugify("Hello World") == "hello-world"


def test_punctuation():
    assert slugify("  C'est la vie!  ") == "c-est-la-vie"
'''
OH_FAIL = """FF                                                                       [100%]
=================================== FAILURES ===================================
E       AssertionError: assert 'Hello-World' == 'hello-world'
2 failed in 0.03s
[Command finished with exit code 1]"""


def openhands_repair() -> dict:
    "An OpenHands-style session (ATIF-v1.8): a failing check, a fix, the check passing; one edit that did not apply."
    ed, sh = "str_replace_editor", "execute_bash"
    steps = [
        {"source": "system", "message": "You are OpenHands agent."},
        {"source": "user", "message": "Write /workspace/slugify.py with slugify(title) and tests in /workspace/test_slugify.py; run them."},
        agent_call(ed, {"command": "create", "path": "/workspace/slugify.py", "file_text": SLUGIFY}, "File created successfully at: /workspace/slugify.py"),
        agent_call(ed, {"command": "create", "path": "/workspace/test_slugify.py", "file_text": SLUGIFY_TESTS}, "File created successfully at: /workspace/test_slugify.py"),
        agent_call(ed, {"command": "str_replace", "path": "/workspace/README.md", "old_str": "TODO", "new_str": "slugify"},
                   "ERROR: Invalid `path` parameter: /workspace/README.md. The path /workspace/README.md does not exist."),
        agent_call(sh, {"command": "cd /workspace && python3 -m pytest -q"}, OH_FAIL),
        agent_call(ed, {"command": "str_replace", "path": "/workspace/slugify.py", "old_str": '    return "-".join(words)\n',
                        "new_str": '    return "-".join(w.lower() for w in words)\n'}, "The file /workspace/slugify.py has been edited."),
        agent_call(sh, {"command": "cd /workspace && python3 -m pytest -q"}, "..                                                                       [100%]\n2 passed in 0.02s\n[Command finished with exit code 0]"),
        {"source": "agent", "message": "slugify now lower-cases every word; both tests pass."},
    ]
    return atif("1.8", {"name": "openhands", "version": "1.0.0", "model_name": "scripted"}, steps, session_id="oh-slugify")


CALC = '''def add(a, b):
    return a + b


def div(a, b):
    return a * b
'''
CALC_TESTS = '''from calc import add, div


def test_add():
    assert add(2, 3) == 5


def test_div():
    assert div(6, 3) == 2
'''


def claude_unreplayable() -> dict:
    "A Claude-Code-style session (ATIF-v1.4) whose fix is an edit that cannot be replayed (its old text is not in the file)."
    steps = [
        {"source": "user", "message": "Create calc.py with add and div, test it with pytest, and fix what fails."},
        agent_call("Write", {"file_path": "/repo/calc.py", "content": CALC}, "File created successfully at: /repo/calc.py"),
        agent_call("Write", {"file_path": "/repo/test_calc.py", "content": CALC_TESTS}, "File created successfully at: /repo/test_calc.py"),
        agent_call("Bash", {"command": "cd /repo && python3 -m pytest -q"}, "Exit code 1\n.F\nFAILED test_calc.py::test_div\n1 failed, 1 passed in 0.02s"),
        agent_call("Edit", {"file_path": "/repo/calc.py", "old_string": "return a*b", "new_string": "return a / b"},
                   "The file /repo/calc.py has been updated."),
        agent_call("Bash", {"command": "cd /repo && python3 -m pytest -q"}, "..\n2 passed in 0.02s", extra={"exit_code": 0}),
        {"source": "agent", "message": "Fixed div."},
    ]
    return atif("1.4", {"name": "claude-code", "version": "2.0.0", "model_name": "scripted"}, steps, session_id="cc-calc")


def batch_lines() -> list:
    "Two trajectories as JSON lines (ATIF-v1.7): a chat with no tool calls, then one that lacks its agent (read with a placeholder since #45)."
    chat = atif("1.7", {"name": "pi", "version": "0.73.1"}, [{"source": "user", "message": "What is a monad?"},
                                                            {"source": "agent", "message": "A monoid in the category of endofunctors."}],
                session_id="chat-1")
    lacks_agent = {"schema_version": "ATIF-v1.7", "session_id": "chat-2", "steps": [{"step_id": 1, "source": "user", "message": "hi"}]}
    return [chat, lacks_agent]


MALFORMED = {
    "no_steps.json": json.dumps({"schema_version": "ATIF-v1.6", "agent": {"name": "pi", "version": "1"}}),
    "old_version.json": json.dumps(atif("1.2", {"name": "pi", "version": "1"}, [{"source": "user", "message": "hi"}])),
    "truncated.json": json.dumps(openhands_repair())[:700],
    "step_without_source.json": json.dumps({"schema_version": "ATIF-v1.6", "agent": {"name": "pi", "version": "1"},
                                            "steps": [{"step_id": 1, "source": "user", "message": "hi"}, {"step_id": 2, "message": "?"}]}),
}


def make_atif():
    (HERE / "atif").mkdir(exist_ok=True); (HERE / "malformed").mkdir(exist_ok=True)
    (HERE / "atif" / "openhands_repair_slugify.json").write_text(json.dumps(openhands_repair(), indent=1) + "\n")
    (HERE / "atif" / "claude_unreplayable_calc.json").write_text(json.dumps(claude_unreplayable(), indent=1) + "\n")
    (HERE / "atif" / "batch.jsonl").write_text("".join(json.dumps(t) + "\n" for t in batch_lines()))
    for name, text in MALFORMED.items(): (HERE / "malformed" / name).write_text(text + "\n")


if __name__ == "__main__":
    make_atif()
    if sys.argv[1:] != ["atif"]:
        for name, (files, requests) in SESSIONS.items():
            print("pi session", name, "->", run_pi_session(name, files, requests), flush=True)
