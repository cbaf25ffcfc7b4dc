"""Extract the Python code blocks of the user's documents in ../shared/seeds at test time.

Three layouts occur: Markdown with ``` fences (003), doctest pages with ``>>>`` / ``...``
prompts followed by printed output (001), and plain text where code sits at column 0 or is
indented among prose lines (000, 002, 004). In plain text a line is code when what is left
after removing comments and string literals has no CJK characters and it starts like Python
(a keyword, a name, a decorator, a bracket, a comment or indentation); blank lines do not end
a block, prose does."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from shared_fixtures import SEEDS as SEEDS_DIR

_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_STRINGS = re.compile(r"'''.*?'''|\"\"\".*?\"\"\"|'[^'\n]*'|\"[^\"\n]*\"")
_CODE_START = re.compile(r"^(\s+\S|#|@|[A-Za-z_][\w.]*\s*(=|\(|\[|\.|,|:|$|\+=|-=)|"
                         r"(import|from|class|def|return|print|if|for|while|with|try|raise|"
                         r"assert|del|pass|else|elif|except|finally|lambda)\b|[\[\(\)\]\}])")
_BULLET = re.compile(r"^\s*(•|\d+\.\s|-\s)")


@dataclass
class SeedBlock:
    """One code block: its source, its first line number (1-based) in the seed, and for
    doctest blocks the output the page shows after the last prompt."""

    code: str
    line: int
    output: str = ""


def seed_path(prefix: str) -> Path | None:
    """The seed whose file name starts with ``prefix`` ("000"), or None when absent."""
    if not SEEDS_DIR.is_dir():
        return None
    matches = sorted(SEEDS_DIR.glob(f"{prefix}*"))
    return matches[0] if matches else None


def extract_blocks(path: Path) -> list[SeedBlock]:
    """All code blocks of one seed file, in page order."""
    text = path.read_text(encoding="utf-8")
    if "```" in text:
        return _fenced(text)
    if re.search(r"^>>> ", text, re.M):
        return _doctest(text)
    return _plain(text)


def _fenced(text: str) -> list[SeedBlock]:
    blocks = []
    for match in re.finditer(r"^```[ \t]*(\w*)[^\n]*\n(.*?)^```", text, re.M | re.S):
        if match.group(1).lower() in ("", "python", "py"):
            blocks.append(SeedBlock(match.group(2), text.count("\n", 0, match.start(2)) + 1))
    return blocks


def _doctest(text: str) -> list[SeedBlock]:
    blocks: list[SeedBlock] = []
    code: list[str] = []
    output: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(">>>") or (line.startswith("...") and code):
            if output:                      # a new prompt after printed output
                output = []
            if not code:
                start = number
            code.append(line[4:] if len(line) > 3 else "")
        elif code and line.strip() and not _CJK.search(line):
            output.append(line)
        elif code:
            blocks.append(SeedBlock("\n".join(code) + "\n", start, "\n".join(output)))
            code, output = [], []
    if code:
        blocks.append(SeedBlock("\n".join(code) + "\n", start, "\n".join(output)))
    return blocks


def is_code_line(line: str) -> bool:
    """Whether a non-blank plain-text line is Python rather than prose."""
    bare = _STRINGS.sub("''", line.split("#", 1)[0] if not line.lstrip().startswith("#") else "")
    if line.lstrip().startswith("#"):
        return True
    if _CJK.search(bare) or _BULLET.match(line):
        return False
    return bool(_CODE_START.match(line))


def _plain(text: str) -> list[SeedBlock]:
    blocks: list[SeedBlock] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            if current:
                current.append("")
            continue
        if is_code_line(line):
            if not current:
                start = number
            current.append(line)
        elif current:
            blocks.append(SeedBlock("\n".join(current).rstrip() + "\n", start))
            current = []
    if current:
        blocks.append(SeedBlock("\n".join(current).rstrip() + "\n", start))
    return blocks
