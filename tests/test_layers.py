"""Which module of the package may import which: the map in DESIGN.md, checked on the code.

Every `harness_adapters` import of every module counts, those inside function bodies too (a lazy import is still a
dependency). A module missing from `LAYERS` fails, so a new module says where it sits; an import not in its row fails,
so a new dependency is a choice made here, in the open. Fast: it parses source, it imports nothing."""
import ast, re
from pathlib import Path
import pytest

PKG = Path(__file__).resolve().parents[1] / "harness_adapters"

# module -> the package modules it may import (the package itself, for `__version__`, is always allowed).
# Lines not to cross (DESIGN.md): the proxy knows nothing of training; tasks and sandboxes know nothing of models;
# the dashboard reads files (runs, stats), never the evaluator or the trainer; the evaluation's tables (evaltables) know
# nothing of the run that made its sessions; runs and stats sit under everything.
LAYERS = {
    "config": set(),
    "stats": set(),
    "runs": {"config"},
    "models": {"config"},
    "routing": set(),
    "serving": {"config", "models", "routing"},
    "cpu_lora": set(),
    "atif_io": set(),
    "effects": set(),
    "detectors": {"atif_io", "config", "effects"},
    "packs.__init__": set(),
    "packs.common": {"detectors"},
    "packs.smoldataenvs": {"packs.common"},
    "packs.traj2envs": {"packs.common"},
    "guard": {"detectors", "effects"},
    "wire": {"atif_io", "guard"},
    "safeagents": {"atif_io", "config", "detectors", "effects", "guard", "guardtools", "routing", "wire"},
    "guardtools": {"atif_io", "envfacts", "guard", "wire"},
    "scripted": set(),
    "sandbox": {"config"},
    "tasks": {"config", "runs"},
    "verifiers": {"runs", "sandbox", "tasks"},
    "taskspecs": {"sandbox", "tasks", "verifiers"},
    "datatasks": {"config", "runs", "tasks"},
    "tinytasks": {"config", "runs", "tasks"},
    "workspacetasks": {"config", "tasks", "tinytasks"},
    "broadtasks": {"workspacetasks"},
    "noveltasks": {"workspacetasks"},
    "harnesses": {"config", "sandbox"},
    "rollouts": {"atif_io", "cluster", "config", "effects", "harnesses", "packs.smoldataenvs", "packs.traj2envs", "runs", "safeagents", "sandbox", "serving", "tasks", "taskspecs", "verifiers"},
    "teacher": {"broadtasks", "cluster", "config", "models", "rollouts", "runs", "scripted", "tasks", "taskspecs", "workspacetasks"},
    "cluster": {"config", "harnesses", "sandbox", "tasks"},
    "samples": {"config", "rollouts"},
    "cpu_attention": set(),
    "cards": {"config", "harnesses", "rollouts"},
    "trainer": {"cards", "config", "cpu_attention", "rollouts", "runs", "samples"},
    "tracking": set(),
    "training": {"cards", "cluster", "config", "harnesses", "rollouts", "runs", "samples", "serving", "tasks", "taskspecs", "tinytasks", "tracking", "trainer", "workspacetasks"},
    "checkpoints": {"cards", "config", "harnesses", "models", "runs", "serving"},
    "evaltables": {"runs", "stats", "tasks"},
    "evaluator": {"checkpoints", "cluster", "config", "dashboard", "evaltables", "rollouts", "runs", "tasks", "taskspecs", "tracking", "workspacetasks"},
    "envfacts": {"atif_io", "detectors", "packs.smoldataenvs", "packs.traj2envs"},
    "envtests": {"envfacts", "sandbox"},
    "envbuilder": {"config", "envfacts", "envtests", "rollouts", "runs", "serving", "tasks", "verifiers"},
    "dashboard": {"config", "results", "runs", "stats", "tasks"},
    "results": {"evaltables", "runs", "stats", "tasks"},
    "sft": {"atif_io", "cards", "config", "envfacts", "guardtools", "models", "rollouts", "runs", "samples"},
    "cli": {"checkpoints", "config", "dashboard", "envbuilder", "evaluator", "models", "results", "rollouts", "serving", "sft", "teacher", "verifiers"},   # its subcommands, by `MODULE:NAME`
    "__init__": set(),
}


REF = re.compile(r"harness_adapters\.([\w.]+):\w+$")   # a `MODULE:NAME` string naming code of the package


def module_name(path: Path) -> str:
    "`harness_adapters/packs/common.py` -> `packs.common`."
    return ".".join(path.relative_to(PKG).with_suffix("").parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py")) if p.name != "_modidx.py"}


def package_imports(source: str, module: str) -> set[str]:
    "The package modules `source` (the text of `module`) imports, anywhere in it; `__init__` for the package itself."
    known, found = set(modules()), set()
    here = module.split(".")[:-1]                    # the package `module` sits in, relative to harness_adapters
    def add(parts: list[str], names=()):
        subs = {".".join(parts + [n]) for n in names} & known   # `from harness_adapters import rollouts`: modules by name
        if subs and len(subs) == len(names): found.update(subs); return
        dotted = ".".join(parts)
        found.add(dotted if dotted in known else f"{dotted}.__init__" if dotted else "__init__")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "harness_adapters": add(a.name.split(".")[1:])
        elif isinstance(node, ast.ImportFrom):
            if node.level:                                # relative: from .x import y, from . import x
                base = here[:len(here) - (node.level - 1)] if node.level > 1 else here
                add(base + (node.module.split(".") if node.module else []), [a.name for a in node.names])
            elif node.module and node.module.split(".")[0] == "harness_adapters":
                add(node.module.split(".")[1:], [a.name for a in node.names])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (m := REF.match(node.value)):
            add(m.group(1).split("."))                   # a `MODULE:NAME` string (`config.load_ref`) is an import too
    return found - {module}


def violations(source: str, module: str) -> set[str]:
    "The imports of `source` (as `module`) that its row of `LAYERS` does not allow."
    return package_imports(source, module) - LAYERS[module] - {"__init__"}


def test_every_module_has_a_row():
    assert set(modules()) == set(LAYERS), {"without a row": set(modules()) - set(LAYERS), "stale rows": set(LAYERS) - set(modules())}


def test_layers_have_no_cycle():
    "The map itself is a stack of layers: following allowed imports never comes back to where it started."
    state = {}
    def visit(m, path):
        if state.get(m) == "done": return
        assert state.get(m) != "open", " -> ".join(path + [m])
        state[m] = "open"
        for d in sorted(LAYERS[m]): visit(d, path + [m])
        state[m] = "done"
    for m in LAYERS: visit(m, [])


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_module_imports_only_its_layers(module):
    src = modules()[module].read_text()
    assert not violations(src, module), f"{module} imports {sorted(violations(src, module))}: not in its row of LAYERS (tests/test_layers.py, DESIGN.md)"


# The checker itself, in match / near-miss pairs: each source must be flagged (True) or pass (False) as its module.
CASES = [
    # the dashboard importing the evaluator inside a function (the cycle `stats` broke): flagged
    ("dashboard", "def f():\n    from harness_adapters.evaluator import interval\n", True),
    # near miss: the same interval from stats, also lazily: allowed
    ("dashboard", "def f():\n    from harness_adapters.stats import interval\n", False),
    # the proxy importing the trainer, relative, in a method: flagged
    ("safeagents", "class P:\n    def g(self):\n        from .trainer import train_run\n", True),
    # near miss: the proxy's own guard, relative: allowed
    ("safeagents", "from .guard import Guard\n", False),
    # a task module reaching a model server through `import a.b as c`: flagged
    ("tasks", "import harness_adapters.serving as s\n", True),
    # near miss: `import harness_adapters` for the version is the package, not a layer: allowed
    ("tasks", "import harness_adapters\nv = harness_adapters.__version__\n", False),
    # `from harness_adapters import trainer` names a module: flagged for runs, which sits under it
    ("runs", "from harness_adapters import trainer\n", True),
    # near miss: a pack importing its sibling with `from . import common`: allowed
    ("packs.traj2envs", "from . import common\n", False),
    # near miss: a third-party module whose name starts like ours is not ours: allowed
    ("stats", "import harness_adapters_extra\nfrom scipy.stats import t\n", False),
    # a plugin named by a `MODULE:NAME` string breaks a layer as an import would: the proxy naming the trainer, flagged
    ("safeagents", "JUDGE = 'harness_adapters.trainer:judge'\n", True),
    # near miss: the rollouts naming the rule packs they start the proxy with: allowed
    ("rollouts", "PLUGINS = ('harness_adapters.packs.traj2envs:checks',)\n", False),
    # near miss: a string that only mentions a module, with no `:NAME`: not a reference
    ("tasks", "HELP = 'see harness_adapters.serving for the server'\n", False),
]


@pytest.mark.parametrize("module,source,flagged", CASES)
def test_checker_match_and_near_miss(module, source, flagged):
    assert bool(violations(source, module)) is flagged, package_imports(source, module)


# Imports sit at the top of a module; one inside a function is there for start-up time (torch, transformers, vLLM,
# scikit-learn, widgets: seconds each, or a side effect at import) and says so with a `# lazy` comment on one of its
# function's import lines. Checked on the source, like the map above.
def unexplained_lazy_imports(src: str) -> list[int]:
    "Line numbers of function-body imports whose function says on none of its import lines why they are lazy."
    lines, out = src.splitlines(), []
    for fn in ast.walk(ast.parse(src)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)): continue
        imps = [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
        if imps and not any("# lazy" in lines[n.lineno - 1] for n in imps): out += [n.lineno for n in imps]
    return sorted(set(out))


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_function_imports_say_why(module):
    src = modules()[module].read_text()
    bad = unexplained_lazy_imports(src)
    assert not bad, f"{module}: imports inside functions at lines {bad} without a `# lazy: why` comment; move them to the top"


def test_lazy_import_checker():
    assert unexplained_lazy_imports("def f():\n    import argparse\n") == [2]
    assert unexplained_lazy_imports("def f():\n    import torch  # lazy: seconds\n    import peft\n") == []
    assert unexplained_lazy_imports("import argparse\ndef f(): pass\n") == []


# -- DESIGN.md's tables say the same as LAYERS ------------------------------------------------------------------------

DESIGN = PKG.parent / "DESIGN.md"


def design_rows(text: str, heading: str) -> list[list[str]]:
    "The body rows of the first table under `heading` in `text`, as cells."
    sec, rows = text.split(heading, 1)[1].split("\n## ", 1)[0], []
    for line in sec.splitlines():
        if line.startswith("|") and not line.startswith("|---"): rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows[1:]


def named_modules(cell: str) -> set[str]:
    "The package modules a 'may use' cell names, parenthetical notes left out (`packs/common` is `packs.common`)."
    while re.search(r"\([^()]*\)", cell): cell = re.sub(r"\([^()]*\)", "", cell)
    return {w.replace("/", ".") for w in re.findall(r"[a-z_][a-z0-9_]*(?:/[a-z0-9_]+)?", cell)} & set(LAYERS)


def design_mismatches(text: str) -> list[str]:
    """Where DESIGN.md's module table (and its import-layer table) differ from `LAYERS`: a module with no row, and each
    row whose 'may use' cell is not exactly what its modules may import (those in the same row left out)."""
    out, seen = [], set()
    for heading, mod_col, use_col in (("## Modules, in reading order", 1, 3), ("## Import layers", 0, 2)):
        for r in design_rows(text, heading):
            mods = {m.replace("/", ".") for m in re.findall(r"`([^`]+)`", r[mod_col])} & set(LAYERS)
            if not mods: continue
            if heading.startswith("## Modules"): seen |= mods
            want = set().union(*(LAYERS[m] for m in mods)) - mods
            if (got := named_modules(r[use_col])) != want:
                out.append(f"{heading[3:]}: {', '.join(sorted(mods))}: may use {sorted(got)}, LAYERS says {sorted(want)}")
    out += [f"no row in DESIGN.md's module table: {m}" for m in sorted(set(LAYERS) - seen - {"__init__", "packs.__init__"})]
    return out


def test_design_tables_match_layers():
    assert design_mismatches(DESIGN.read_text()) == []


def test_design_check_fails_on_a_planted_mismatch():
    text = DESIGN.read_text()
    row = next(l for l in text.splitlines() if l.startswith("| 10_samples |"))
    planted = text.replace(row, row.replace("| config, rollouts |", "| config, rollouts, trainer |"))
    assert planted != text and any("samples" in m and "trainer" in m for m in design_mismatches(planted))
    gone = text.replace(next(l for l in text.splitlines() if l.startswith("| 10e_tracking |")) + "\n", "")
    assert "no row in DESIGN.md's module table: tracking" in design_mismatches(gone)
