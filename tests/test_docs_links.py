"""Every relative link of the README and of docs/ (markdown links and images) reaches a
file that exists, and an ``#anchor`` a heading of its target (GitHub's anchors)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_SOURCE = re.compile(r"""<(?:img|a)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def documents(root=ROOT):
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _prose(text):
    return INLINE_CODE.sub("", FENCE.sub("", text))


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens,
    repeats numbered."""
    seen = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def dead_links(paths, root=ROOT):
    dead = []
    for path in paths:
        prose = _prose(path.read_text())
        for target in LINK.findall(prose) + HTML_SOURCE.findall(prose):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(root)}: {target}"
            if not linked.exists():
                dead.append(f"{where} (no such file)")
            elif anchor and linked.is_file() and linked.suffix == ".md":
                if anchor not in anchors(linked):
                    dead.append(f"{where} (no heading #{anchor})")
    return dead


def test_the_readme_and_docs_have_no_dead_relative_links():
    assert dead_links(documents()) == []


def test_the_readme_links_to_documentation():
    linked = LINK.findall(_prose((ROOT / "README.md").read_text()))
    assert any(target.startswith("docs/") for target in linked)


def test_a_missing_file_a_missing_heading_and_a_missing_image_are_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n\n## Running it, twice\n")
    (tmp_path / "README.md").write_text(
        "[ok](docs/guide.md#running-it-twice) [top](#readme) [web](https://example.org/x)\n"
        "[gone](docs/gone.md) [no heading](docs/guide.md#running) ![shot](docs/shot.png)\n"
        '<img src="docs/other.png"> `[in code](docs/code.md)`\n\n# Readme\n'
        "```\n[fenced](docs/fenced.md)\n```\n"
    )
    assert dead_links(documents(tmp_path), tmp_path) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/guide.md#running (no heading #running)",
        "README.md: docs/shot.png (no such file)",
        "README.md: docs/other.png (no such file)",
    ]
