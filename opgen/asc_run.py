"""`opgen run FILE.asc` and `opgen cxx`: single-source programs (host main + kernels + <<<>>>
launches) compiled with g++ against the simulator, their launches rewritten by asc_rewrite."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from opgen.asc_rewrite import rewrite
from opgen.config_flags import cflags, libs
from opgen.diagnostics import OpgenError

CXX_ENV = "CXX"
OPTIMIZE = ("-O2",)
# CANN's CPU mode compiles an .asc program with its target's architecture number, which samples
# choose their code by (`#if __NPU_ARCH__ == 2201`): the simulator's flags (cflags) carry the
# 910B's, dav-2201 (asc-devkit cmake/asc/asc_modules/CMakeASCInformation.cmake), unless the
# command defines it (own_flags).
# g++ options after which no link happens (compile only, preprocess, assembly, dependencies).
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM"}
_SOURCES = (".cpp", ".cc", ".cxx", ".cce", ".C")
# `opgen cxx --npu-build`: compile as CANN's NPU build does (host code takes its acl path, not
# ASCENDC_CPU_DEBUG's), with the launches of every source rewritten, and without the options
# and libraries only the NPU toolchain knows.
NPU_BUILD = "--npu-build"
_NPU_ONLY_LIBS = {"-lascendcl", "-lruntime", "-lruntime_camodel", "-lpem_davinci", "-ltikicpulib"}


def cache_dir() -> Path:
    """<opgen cache>/asc: rewritten sources and programs, content-addressed."""
    from opgen_runtime.build import cache_root  # the runtime owns the cache location

    return cache_root() / "asc"


def compiler() -> str:
    return os.environ.get(CXX_ENV, "g++")


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:20]


def _atomic_write(path: Path, data: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(data)
    os.replace(tmp, path)


def rewritten_text(asc: Path) -> str:
    """The C++ source of an .asc file (or of a kernel file with a <<<>>> host wrapper)."""
    try:
        text = asc.read_text("utf-8")
    except OSError as exc:
        raise OpgenError(f"cannot read {asc}: {exc.strerror}") from None
    return rewrite(text, str(asc.resolve()))


def rewritten(asc: Path) -> Path:
    """The rewritten C++ source of an .asc file, in the cache (written once per content)."""
    source = rewritten_text(asc)
    dest = cache_dir() / "src" / _digest(source) / f"{asc.stem}.cpp"
    if not dest.is_file():
        _atomic_write(dest, source)
    return dest


def _is_asc(arg: str) -> bool:
    return arg.endswith(".asc") and not arg.startswith("-")


def _npu_args(args: Sequence[str]) -> list[str]:
    """The arguments without the NPU compiler's own options (-xcce, --cce-*, --sanitizer,
    -mllvm X)."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-mllvm":
            skip = True
        elif not (arg.startswith(("--cce-", "--npu-arch=")) or arg in ("-xcce", "--sanitizer")
                  or arg in _NPU_ONLY_LIBS):
            out.append(arg)
    return out


def _has_launch(path: Path) -> bool:
    try:
        return "<<<" in path.read_text("utf-8", errors="replace")
    except OSError:
        return False


def _macro(flag: str) -> str:
    """NAME of a `-DNAME` or `-DNAME=value` flag ("" for another flag)."""
    return flag[2:].split("=", 1)[0] if flag.startswith("-D") and len(flag) > 2 else ""


def own_flags(user_flags: Sequence[str]) -> list[str]:
    """The simulator's compile flags (cflags: the CPU-debug defines and the simulated SoC's
    architecture macros, e.g. __NPU_ARCH__=2201), less the macros `user_flags` define
    themselves (`-DNAME=...` or `-D NAME=...`: CANN's CPU mode passes the target's __NPU_ARCH__)."""
    given = {_macro(f) for f in user_flags} | {
        b.split("=", 1)[0] for a, b in itertools.pairwise(user_flags) if a == "-D"}
    given.discard("")
    return [f for f in cflags() if _macro(f) not in given]


def cxx_command(args: Sequence[str]) -> list[str]:
    """The g++ command for `opgen cxx ARGS`: the simulator's flags, each .asc argument replaced by
    its rewritten source (with its directory on the quote include path), and the link flags when
    the command links. With --npu-build first, see NPU_BUILD."""
    npu = bool(args) and args[0] == NPU_BUILD
    if npu:
        args = _npu_args(args[1:])
    flags = own_flags(args)
    if npu:
        flags = [f for f in flags if not f.startswith(("-DASCENDC_CPU_DEBUG", "-D__CCE_KT_TEST__"))]
    out: list[str] = [compiler(), *flags]
    quote_dirs: list[str] = []
    files: list[str] = []
    for arg in args:
        if _is_asc(arg) or (npu and arg.endswith(_SOURCES) and _has_launch(Path(arg))):
            asc = Path(arg)
            quote_dirs.append(f"-iquote{asc.resolve().parent}")
            files.append(str(rewritten(asc)))
        else:
            files.append(arg)
    out += dict.fromkeys(quote_dirs)  # de-duplicated, in order
    out += files
    if not _NO_LINK & set(args):
        out += [f for f in libs() if f not in out]
    return out


_REWRITE_USAGE = ("usage: opgen cxx --rewrite FILE -o OUT.cpp "
                  "[--aclrtlaunch HEADER_DIR [-I DIR]... [-D NAME[=VALUE]]...]")


def _rewrite_command(args: Sequence[str]) -> None:
    """`--rewrite FILE -o OUT.cpp`: OUT.cpp is FILE with its launches rewritten. With
    `--aclrtlaunch DIR` (ascendc_library's builds) OUT.cpp also defines aclrtlaunch_<kernel> for
    each kernel of FILE, and DIR gets its header; -I and -D are the library's include
    directories and definitions, with which the kernel frontend reads FILE."""
    if len(args) < 3 or args[1] != "-o":
        raise OpgenError(_REWRITE_USAGE)
    source, out = Path(args[0]), Path(args[2])
    header_dir: Path | None = None
    include_dirs: list[str] = []
    defines: list[str] = []
    rest = list(args[3:])
    while rest:
        opt = rest.pop(0)
        if opt in ("--aclrtlaunch", "-I", "-D") and rest:
            value = rest.pop(0)
        elif opt.startswith(("-I", "-D")) and len(opt) > 2:
            opt, value = opt[:2], opt[2:]
        else:
            raise OpgenError(f"opgen cxx --rewrite: unexpected '{opt}'\n{_REWRITE_USAGE}")
        if opt == "--aclrtlaunch":
            header_dir = Path(value)
        elif opt == "-I":
            include_dirs.append(value)
        else:
            defines.append(value)
    text = rewritten_text(source)
    if header_dir is not None:
        from opgen.aclrtlaunch import appendix, header_text, launch_functions

        functions = launch_functions(source, include_dirs, defines)
        for fn in functions:
            _write_if_changed(header_dir / fn.header, header_text(fn, source.name))
        text += appendix(functions)
    _atomic_write(out, text)


def _write_if_changed(path: Path, text: str) -> None:
    """Leaves an unchanged file alone, so that what includes it is not rebuilt."""
    try:
        if path.read_text("utf-8") == text:
            return
    except OSError:
        pass
    _atomic_write(path, text)


def cxx(args: Sequence[str]) -> int:
    """Runs the compiler as `opgen cxx` would; returns its exit status. `--rewrite IN -o OUT`
    only writes the rewritten source of IN (for build systems that compile it themselves), see
    _rewrite_command."""
    if args and args[0] == "--rewrite":
        _rewrite_command(args[1:])
        return 0
    if not any(_is_asc(a) or a.endswith((*_SOURCES, ".o")) for a in args):
        raise OpgenError("opgen cxx: give at least one source file (FILE.asc or .cpp)")
    try:
        return subprocess.run(cxx_command(args), check=False).returncode
    except FileNotFoundError:
        raise OpgenError(f"the C++ compiler '{compiler()}' was not found (set CXX)") from None


def _deps_ok(record: Path) -> bool:
    try:
        deps: dict[str, str] = json.loads(record.read_text("utf-8"))
        return all(_digest(Path(p).read_bytes()) == d for p, d in deps.items())
    except (OSError, ValueError):
        return False


def _parse_depfile(text: str) -> list[str]:
    body = text.split(":", 1)[1] if ":" in text else ""
    return [p for p in shlex.split(body.replace("\\\n", " ")) if p]


def build_program(asc: Path, extra_flags: Sequence[str] = ()) -> Path:
    """Compiles an .asc program into the cache (again only when it or a header it includes
    changed) and returns the executable."""
    source = rewritten(asc)
    flags = [*own_flags(extra_flags), *OPTIMIZE, f"-iquote{asc.resolve().parent}", *extra_flags]
    key = _digest(source.read_text("utf-8"), compiler(), *flags, *libs())
    folder = cache_dir() / "bin" / key
    exe = folder / asc.stem
    record = folder / "deps.json"
    if exe.is_file() and _deps_ok(record):
        return exe
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{asc.stem}.{os.getpid()}"
    depfile = folder / f".deps.{os.getpid()}"
    cmd = [compiler(), *flags, "-MMD", "-MF", str(depfile), str(source), "-o", str(tmp), *libs()]
    try:
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    except FileNotFoundError:
        raise OpgenError(f"the C++ compiler '{compiler()}' was not found (set CXX)") from None
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        depfile.unlink(missing_ok=True)
        raise OpgenError(proc.stderr.rstrip() + f"\nopgen: error: {asc} did not compile")
    deps = _parse_depfile(depfile.read_text("utf-8"))
    depfile.unlink(missing_ok=True)
    _atomic_write(record, json.dumps({p: _digest(Path(p).read_bytes()) for p in deps}, indent=0))
    os.replace(tmp, exe)
    return exe


def program_env() -> dict[str, str]:
    """The environment of a program opgen runs: its aclrtcCompileProg (acl/acl_rt_compile.h)
    compiles with this opgen."""
    return {**os.environ, "OPGEN_RTC_PYTHON": sys.executable}


def run(asc: Path, program_args: Sequence[str], extra_flags: Sequence[str] = ()) -> int:
    """Builds and runs the program in the current directory; returns its exit status."""
    if not asc.is_file():
        raise OpgenError(f"{asc}: no such file")
    exe = build_program(asc, extra_flags)
    proc = subprocess.run([str(exe), *program_args], check=False, env=program_env())
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        raise OpgenError(f"{asc.name} was killed by {name}")
    return proc.returncode
