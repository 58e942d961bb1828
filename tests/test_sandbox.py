"""The sandbox sees the interpreter the project runs under wherever it is installed. A virtual environment under
`/tmp` (a CI temp dir) or `/var/tmp` drives a sandbox: inside, `python3` is that venv, with a module that only the
venv has, for a plain command and for a task's oracle and verifier (`verifiers.run_trial`). Before the interpreter was
bound after the sandbox's fresh `/tmp`, the venv vanished under it and `python3` fell back to the base interpreter.
Each case builds a venv without pip and runs three sandboxes: a few seconds, so not `slow`."""
import json, os, shutil, site, subprocess, sys, tempfile, uuid, venv
from pathlib import Path

import pytest

from harness_adapters.sandbox import ToolNotFound, find_tool
from harness_adapters.tasks import write_task

def _no_bwrap() -> str:
    "Why no sandbox can be made here (empty when bwrap is found: its pinned wheel, or the system's)."
    try: find_tool("bwrap"); return ""
    except ToolNotFound as e: return str(e)


pytestmark = pytest.mark.skipif(bool(_no_bwrap()), reason=_no_bwrap() or "bwrap found")
REPO = Path(__file__).resolve().parents[1]

# Run by the venv's interpreter (cwd: this checkout, so its harness_adapters comes first), so that the sandbox's
# "interpreter this process runs under" is the venv. The project's dependencies come from the test's own
# site-packages, added on the host side only: the sandbox gets none of this sys.path.
DRIVER = """
import json, site, sys
for p in json.loads(sys.argv[1]): site.addsitedir(p)
from harness_adapters.sandbox import BubblewrapBackend, SandboxConfig
from harness_adapters.tasks import load_task
from harness_adapters.verifiers import run_trial
mod, task = sys.argv[2], sys.argv[3]
with BubblewrapBackend().create(SandboxConfig()) as sb:
    r = sb.run(f"python3 -I -c 'import sys, {mod}; print(sys.prefix, {mod}.__file__)'; stat -c %a /tmp")
t = run_trial(load_task(task), "oracle")
print(json.dumps({"prefix": sys.prefix, "inside": r.stdout_tail.split(), "stderr": r.stderr_tail[-800:],
                  "oracle": t.passed, "reward": t.reward, "error": t.error}))
"""


def make_venv(root: Path) -> tuple[Path, str, Path]:
    "A venv (no pip) at `root` holding a module `onlyinvenv_<hex>` in its own site-packages: (python3, module, its file)."
    venv.create(root, with_pip=False, symlinks=True)
    py = root / "bin" / "python3"
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    mod = f"onlyinvenv_{uuid.uuid4().hex[:8]}"
    (Path(purelib) / f"{mod}.py").write_text(f"ANSWER = {uuid.uuid4().hex[:12]!r}\n")
    return py, mod, Path(purelib) / f"{mod}.py"


@pytest.fixture(params=["/tmp", "/var/tmp"])
def tiny_venv(request):
    "A venv under the parametrised folder, 0755 like one made by `python -m venv`; removed after the test."
    root = Path(tempfile.mkdtemp(prefix="venv-sbx-", dir=request.param))
    try:
        os.chmod(root, 0o755)
        yield make_venv(root)
    finally: shutil.rmtree(root, ignore_errors=True)


def probe_task(dest: Path, mod: str) -> Path:
    "A task whose oracle and verifier both need `mod`, run the way the data-analysis family runs them."
    return write_task(dest, {"id": "venv-probe", "family": "qa", "difficulty": "easy", "split": "train"},
                      "Write the answer to /workspace/answer.txt.\n", {},
                      {"test.sh": "#!/bin/bash\nset -euo pipefail\nexec python3 -I /tests/grade.py\n",
                       "grade.py": f"import pathlib, {mod}\n"
                                   "answer = pathlib.Path('/workspace/answer.txt').read_text().strip()\n"
                                   f"ok = answer == {mod}.ANSWER\n"
                                   "pathlib.Path('/logs/verifier/reward.txt').write_text('1' if ok else '0')\n"},
                      {"solve.sh": "#!/bin/bash\nset -euo pipefail\npython3 /solution/solve.py > /workspace/answer.txt\n",
                       "solve.py": f"import {mod}\nprint({mod}.ANSWER)\n"})


def test_venv_interpreter_inside_sandbox(tiny_venv, tmp_path):
    py, mod, mod_file = tiny_venv
    prefix = str(py.parent.parent)
    assert subprocess.run([sys.executable, "-I", "-c", f"import {mod}"], capture_output=True).returncode != 0, \
        "the module must exist only in the venv"
    task = probe_task(tmp_path / "task", mod)
    p = subprocess.run([py, "-c", DRIVER, json.dumps(site.getsitepackages()), mod, str(task)],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["prefix"] == prefix, out
    assert out["inside"] == [prefix, str(mod_file), "1777"], out  # the venv's python3, its module, /tmp still private
    assert out["oracle"] and out["reward"] == 1.0, out


@pytest.mark.skipif(os.geteuid() != 0, reason="only as root does the sandbox run as another user")
def test_venv_closed_to_sandbox_user_is_a_clear_error():
    "A venv in a 0700 folder (mkdtemp's mode) cannot be entered by the dropped uid: the backend says so, naming it."
    root = Path(tempfile.mkdtemp(prefix="venv-sbx-closed-", dir="/tmp"))
    try:
        py, _, _ = make_venv(root)
        code = "import json, site, sys\nfor p in json.loads(sys.argv[1]): site.addsitedir(p)\n" \
               "from harness_adapters.sandbox import BubblewrapBackend\nBubblewrapBackend()"
        p = subprocess.run([py, "-c", code, json.dumps(site.getsitepackages())], cwd=REPO, capture_output=True, text=True)
        assert p.returncode != 0 and "PermissionError" in p.stderr and f"{root}, which the sandbox" in p.stderr, p.stderr
    finally: shutil.rmtree(root, ignore_errors=True)
