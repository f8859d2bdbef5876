"""Writes one benchmark's section of benchmarks/RESULTS.md, keeping the other sections."""

from __future__ import annotations

import platform
import re
from collections.abc import Sequence
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = ("# Benchmark results\n\nWritten by the scripts in benchmarks/ (run on demand, e.g. "
          "`make bench`). Figures are from one run on the machine named in each section; "
          "compare ratios measured side by side, not absolute times across machines.\n")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_section(title: str, body: str) -> None:
    """Replace (or append) the `## title` section of RESULTS.md."""
    text = RESULTS.read_text("utf-8") if RESULTS.exists() else HEADER
    section = f"## {title}\n\n{body.rstrip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _m: section + "\n", text).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    RESULTS.write_text(text, "utf-8")
