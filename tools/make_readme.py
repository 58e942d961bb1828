"""Write README.md from nbs/index.ipynb (markdown cells as they are; code cells as python blocks unless hidden).

    python tools/make_readme.py          # write README.md
    python tools/make_readme.py --check  # exit 1 if README.md is not what index.ipynb makes (CI runs this)

nbdev's own `nbdev-readme` renders through Quarto, which this project does not need anywhere else.
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_text(nb_path: Path = ROOT / "nbs" / "index.ipynb") -> str:
    cells = json.loads(nb_path.read_text())["cells"]
    parts = []
    for c in cells:
        src = "".join(c["source"])
        if c["cell_type"] == "markdown": parts.append(src)
        elif not any(l.strip() in ("#| hide", "#|hide") for l in src.splitlines()):
            parts.append("```python\n" + src + "\n```")
    return "<!-- generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file -->\n\n" \
        + "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    text, out = readme_text(), ROOT / "README.md"
    if "--check" in sys.argv:
        if not out.exists() or out.read_text() != text:
            sys.exit("README.md is out of date with nbs/index.ipynb: run python tools/make_readme.py")
    else:
        out.write_text(text)
