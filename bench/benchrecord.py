"""What every bench records beside its numbers: the code revision, and where its JSON and Markdown go."""
import json, subprocess
from pathlib import Path

CODE = Path(__file__).resolve().parents[1]


def revision() -> str:
    "The checkout's short commit, marked when the package or the benches differ from it."
    rev = subprocess.run(["git", "-C", str(CODE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(CODE), "status", "--porcelain", "--", "harness_adapters", "bench"],
                           capture_output=True, text=True).stdout.strip()
    return rev + (" (with uncommitted changes)" if dirty else "")


def save(out: str | Path, name: str, res: dict, table: str) -> None:
    "`out/name.json` (every number) and `out/name.md` (the table), and the table printed."
    out = Path(out); out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(res, indent=1))
    (out / f"{name}.md").write_text(table)
    print(table)
