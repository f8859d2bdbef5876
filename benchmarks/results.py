"""Writes one benchmark's section of benchmarks/RESULTS.md, keeping the other sections."""

from __future__ import annotations

import ctypes
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


def cpu_model() -> str:
    """The CPU's model name and widest SIMD unit the simulator's lanes use (`Intel(R) Xeon(R)
    Processor, AVX-512`): the same code runs other lanes on another CPU, so figures from two
    CPUs do not compare."""
    name, flags = platform.processor() or "unknown CPU", ""
    try:
        for line in Path("/proc/cpuinfo").read_text("utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name in ("", "unknown CPU", platform.machine()):
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = value
    except OSError:
        pass
    simd = next((label for flag, label in (("avx512f", "AVX-512"), ("avx2", "AVX2"),
                                           ("avx", "AVX")) if flag in flags.split()), "")
    return f"{name}, {simd}" if simd else name


def machine() -> str:
    import os

    return (f"{platform.machine()} ({cpu_model()}), {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


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


def steady_malloc() -> None:
    """glibc's malloc serving the 8-32 MiB tensors of both sides from its heap, kept: by default
    each such allocation may be a fresh mapping (or the heap trimmed after it), whose page faults
    then dominate torch's times (torch.square(F.relu(x)) on 4096x1024: 11.3 ms against 0.63 ms
    in one process). As MALLOC_MMAP_THRESHOLD_=33554432 and a trim threshold of 2 GiB would."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    libc.mallopt(m_mmap_threshold, 32 << 20)
    libc.mallopt(m_trim_threshold, ctypes.c_int(2**31 - 1))
