"""Kernel build (the seed's `aoc` step): g++ into a content-addressed cache of shared libraries."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

from . import progress
from .cachedir import cache_root as cache_root  # where it always was, for callers
from .cachedir import prebuilt
from .errors import BuildError, CompileError

_log = logging.getLogger("opgen_runtime")  # progress of slow steps (opgen_runtime.progress)

# Every simulator build is CANN's CPU-debug build: ASCENDC_CPU_DEBUG (and __CCE_KT_TEST__, the
# older samples' name for it) drops the `#ifndef ASCENDC_CPU_DEBUG` host wrappers with their
# `kernel<<<blockDim, nullptr, stream>>>(...)` launches, which only the NPU compiler reads.
CPU_DEBUG_DEFINES: tuple[str, ...] = ("-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1")
# The simulated SoC's architecture, as CANN's compiler names it to the 910B's kernels (npu arch
# 2201, AI Core 220, dav-c220): kernels choose their 910B code by these (`#if __CCE_AICORE__ ==
# 220`: DataCopyPad where older SoCs copy whole blocks).
ARCH_DEFINES: tuple[str, ...] = ("-D__NPU_ARCH__=2201", "-D__CCE_AICORE__=220", "-D__DAV_C220__")
# ... and a vector core's (AIV) compile of a kernel. CANN compiles a kernel once per core type;
# the simulator compiles it once, as the vector cores' code (a kernel that names the cube
# core's macros gets neither: docs/simulator.md, "Architecture macros").
VECTOR_CORE_DEFINES: tuple[str, ...] = ("-D__DAV_C220_VEC__", "-D__DAV_VEC__")
_CUBE_CORE_MACROS = (b"__DAV_C220_CUBE__", b"__DAV_CUBE__")


_DECLARED_MIX = re.compile(rb"\bKERNEL_TASK_TYPE_DEFAULT\s*\(\s*KERNEL_TYPE_MIX_AIC_1_([12])\s*\)")


def declared_mix(text: bytes) -> list[str]:
    """The force-include that records a kernel's KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1
    or _1_2) (opgen_sim/declared_mix_1_<n>.h), from the kernel source's `text`: a registered op's
    launch then runs a cube core a block beside its vector cores. The macro sits in the kernel's
    body, too late to say so. A kernel that registers Matmul objects (REGIST_MATMUL_OBJ) keeps
    the Matmul API's launch: its objects compute on the vector cores (docs/simulator.md, "Mix
    kernels")."""
    m = _DECLARED_MIX.search(text)
    if m is None or b"REGIST_MATMUL_OBJ" in text:
        return []
    return ["-include", f"opgen_sim/declared_mix_1_{m.group(1).decode()}.h"]


# A cast to a pointer to a wider integer type outside GM (`reinterpret_cast<uint32_t*>(tiling)`,
# `(uint32_t *)&value`): how kernels copy a tiling struct word by word and then read its floats
# (asc-devkit's softmaxflashv3 CopyTiling), or read a float's bits. Undefined in C++: at -O3 GCC
# reads the floats as they were before the copy, where CANN's unoptimised CPU mode reads what was
# copied. A kernel whose source has such a cast is compiled with -fno-strict-aliasing; the others
# are not, as the flag makes some of the simulator's loops 2-3x slower (`Duplicate` with a mask,
# `Select`, `WholeReduceSum` in benchmarks/bench_ops.py).
_WORD_PUN = re.compile(
    rb"reinterpret_cast\s*<\s*(?:const\s+)?(?:u?int(?:16|32|64)_t|unsigned(?:\s+int)?|int)\s*\*\s*>"
    rb"|\(\s*(?:const\s+)?(?:u?int(?:16|32|64)_t|unsigned(?:\s+int)?)\s*\*\s*\)\s*[&\w(]")


def aliasing_flags(text: bytes) -> list[str]:
    """-fno-strict-aliasing for a kernel source that casts to an integer pointer outside GM."""
    return ["-fno-strict-aliasing"] if _WORD_PUN.search(text) else []


def core_defines(text: bytes) -> tuple[str, ...]:
    """VECTOR_CORE_DEFINES, unless the kernel source's `text` names the cube core's macros."""
    return () if any(m in text for m in _CUBE_CORE_MACROS) else VECTOR_CORE_DEFINES


BASE_FLAGS: tuple[str, ...] = (
    *CPU_DEBUG_DEFINES,
    *ARCH_DEFINES,
    "-O3",
    # every multiply and add rounded on its own, as the vector unit does: GCC would otherwise fuse
    # a * b + c into one FMA where the target has it (aarch64 always; x86 only with -mfma)
    "-ffp-contract=off",
    "-std=c++17",
    "-fPIC",
    "-shared",
    "-pthread",
    "-fvisibility=hidden",
    "-fno-math-errno",
    # line tables (with the inlined-call chains) and nothing more, compressed: the simulator
    # names the kernel's line of a rule violation or a fault (opgen_sim/faults.h)
    "-g1",
    "-gno-column-info",
    "-gz",
)
STRICT_ENV = "OPGEN_SIM_STRICT"


def strict_build_flags() -> tuple[str, ...]:
    """The build's share of strict mode: `ASSERT(x)` checks only in libraries built while
    OPGEN_SIM_STRICT=1 is set (CANN's NPU build expands it to nothing, its CPU-debug build to
    assert(x)). Part of the cache key, so a strict and a default library never mix."""
    value = os.environ.get(STRICT_ENV, "")
    return ("-DOPGEN_SIM_CHECKED_ASSERT=1",) if value not in ("", "0") else ()


# The kernel's directory as the line tables name it: a library is cached by content, not by
# path, so the launcher puts the source's current directory in its place (kernel_site_path).
KERNEL_DIR_TOKEN = "/<kernel-dir>"
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl")
# Bumped when the launch ABI between opgen_runtime and the headers changes, or what a library
# holds (v2: line tables whose kernel directory is KERNEL_DIR_TOKEN; v3: the simulator runtime
# linked in from its own object; v4: and the API instance objects its unit declares extern; v5:
# __FILE__ names the kernel directory by the token too).
CACHE_FORMAT = "opgen-kernel-v7"
# The simulator's runtime (launch entries, thread pool, watchdog, fault reports: most of what
# a kernel library holds) compiled once per compiler, flag set and simulator headers, and
# linked into each kernel library, whose own unit then compiles only the kernel
# (OPGEN_SIM_EXTERN_RUNTIME, opgen_sim/launch.h). Every library still holds its own copy.
RUNTIME_FORMAT = "opgen-sim-runtime-v1"
RUNTIME_UNIT = ('// @generated by opgen: the simulator runtime linked into every kernel library\n'
                '#include "kernel_operator.h"\n')
# The simulator's raw-pointer scan (opgen_sim/raw_gm_scan.h) as a small host library: each
# kernel unit's source is scanned when it compiles and the verdict force-included
# (opgen_sim/source_verdict.h, unit_command), so a cached kernel needs no source at run time.
SCANNER_FORMAT = "opgen-sim-scan-v1"
SCANNER_UNIT = ('// @generated by opgen: the raw-pointer scan, called before each kernel compile\n'
                '#include "opgen_sim/raw_gm_scan.h"\n'
                'extern "C" __attribute__((visibility("default"))) int '
                'opgen_sim_source_stores_raw(const char* path) {\n'
                '    return opgen_sim::scan::StoresRawPointers({path}) ? 1 : 0;\n}\n')
# The vector and copy APIs compiled once per dtype (opgen_sim/instances.h): a kernel unit with
# the precompiled header declares them extern (opgen_sim/extern_instances.h) and links the
# instance objects of the dtypes it calls them with, which it finds among its undefined symbols.
INSTANCES_FORMAT = "opgen-sim-instances-{dtype}-v1"
# OPGEN_SIM_INSTANCE_DTYPES, and each dtype's code as the Itanium ABI mangles a template argument
INSTANCE_DTYPES: dict[str, str] = {"half": "DF16_", "float": "f", "int16_t": "s", "int32_t": "i"}
_EXTERN_INSTANCES = "opgen_sim/extern_instances.h"
# an AscendC function template's instance: _ZN7AscendC<len><name>I<first template argument>...
_INSTANCE_SYMBOL = re.compile(r"_ZN7AscendC(\d+)")
# g++'s located lines: `path:line:col: error: text`, and `path:line:col:   required from here`
# under an "In instantiation of ..." header.
_DIAGNOSTIC = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|warning|note): "
    r"(?P<text>.*)$")
_REQUIRED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+):\s+required from")


def include_dir() -> Path:
    """Directory holding kernel_operator.h (a package subdir when installed from a wheel)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "include", here.parent / "include"):
        if (candidate / "kernel_operator.h").is_file():
            return candidate
    raise BuildError(f"kernel_operator.h not found next to {here}")


def cache_dir() -> Path:
    """The kernel cache: <cache root>/kernels."""
    return cache_root() / "kernels"


@dataclass(frozen=True)
class KernelTemplate:
    """A templated kernel entry (`template<...> __global__ void op(...)`, CANN's tiling-key
    templates), as the kernel frontend read it: each template parameter as (name, kind, type),
    kind "type" (an ASCENDC_TPL_DATATYPE) or "value" with its C++ type, and the entry's number
    of GM_ADDR parameters."""

    params: tuple[tuple[str, str, str], ...]
    arity: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KernelTemplate:
        return cls(tuple((p["name"], p["kind"], p["type"]) for p in data["params"]),
                   int(data["arity"]))

    def launch_source(self, kernel: Path, entry: str) -> str:
        """A translation unit holding the kernel and an extern "C" `entry` that runs the
        instantiation the launch's tiling key selects (opgen_sim/tpl_dispatch.h)."""
        values = ", ".join(f"uint64_t V{i}" for i in range(len(self.params)))
        args = []
        for i, (_name, kind, ctype) in enumerate(self.params):
            args.append(f"typename ::TypeFromId<static_cast<int>(V{i})>::type" if kind == "type"
                        else f"static_cast<{ctype}>(V{i})")
        gm = ", ".join(f"GM_ADDR a{i}" for i in range(self.arity))
        passed = ", ".join(f"a[{i}]" for i in range(self.arity))
        listed = ", ".join(f"a{i}" for i in range(self.arity))
        return (
            f"// @generated by opgen: the launch entry of the templated kernel {entry}\n"
            f"#include {json.dumps(str(kernel))}\n"
            '#include "opgen_sim/tpl_dispatch.h"\n'
            "namespace {\n"
            "struct OpgenTplCall {\n"
            f"    template <{values}>\n"
            "    static void Run(uint8_t** a) {\n"
            f"        {entry}<{', '.join(args)}>({passed});\n"
            "    }\n"
            "};\n"
            "}  // namespace\n"
            f'extern "C" __global__ void opgen_tpl_entry({gm}) __asm__({json.dumps(entry)});\n'
            f'extern "C" __global__ void opgen_tpl_entry({gm}) {{\n'
            f"    uint8_t* a[] = {{{listed}}};\n"
            "    ::opgen_tpl::Launch<OpgenTplCall, g_tilingDeclareParams, g_tilingSelectParams>("
            f"{json.dumps(entry)}, a);\n"
            "}\n")


@dataclass(frozen=True)
class BuildRequest:
    """One kernel to build; the fields mirror build_kernel's arguments."""

    source: str | os.PathLike[str]
    entry: str | Sequence[str]
    defines: Mapping[str, str] | None = None
    include_dirs: Sequence[str | os.PathLike[str]] = ()
    extra_flags: Sequence[str] = ()
    template: KernelTemplate | None = None


@dataclass(frozen=True)
class KernelLibrary:
    """A built kernel: the shared library and the kernel entries it exports."""

    path: Path
    entries: tuple[str, ...]
    source: Path
    key: str = field(repr=False)


def _compiler() -> str:
    cxx = os.environ.get("CXX", "g++")
    found = shutil.which(cxx)
    if found is None:
        raise BuildError(f"C++ compiler '{cxx}' not found (set CXX or install g++)")
    return found


_GOLD = {"usable": True}


def linker_flags(cxx: str) -> tuple[str, ...]:
    """gold when it is installed: a kernel's link (its object, the runtime object, the API
    instances, --gc-sections, compressed line tables) takes a third of GNU ld's time
    (benchmarks/RESULTS.md, "Build latency"). The output means the same. A link that fails with
    it is run again without it (link()), and gold is not asked for again in this process."""
    del cxx  # the driver's -fuse-ld= finds ld.gold on its own search path, as PATH does
    return ("-fuse-ld=gold",) if _GOLD["usable"] and shutil.which("ld.gold") else ()


def link(cmd: Sequence[str],
         env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a link command (linker_flags() in it): if it fails with gold, once more without."""
    proc = subprocess.run(list(cmd), capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0 and "-fuse-ld=gold" in cmd:
        plain = [c for c in cmd if c != "-fuse-ld=gold"]
        retry = subprocess.run(plain, capture_output=True, text=True, check=False, env=env)
        if retry.returncode == 0:
            _GOLD["usable"] = False
        return retry
    return proc


def _compiler_identity(path: str) -> str:
    # The resolved binary and its stat identify the compiler version without running it.
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def _headers_under(d: Path, recursive: bool) -> list[Path]:
    if not d.is_dir():
        return []
    it = d.rglob("*") if recursive else d.glob("*")
    return sorted(p for p in it if p.suffix in HEADER_SUFFIXES and p.is_file())


def _forced_includes(flags: Sequence[str]) -> list[Path]:
    out = []
    for i, flag in enumerate(flags):
        if flag == "-include" and i + 1 < len(flags):
            out.append(Path(flags[i + 1]))
        elif flag.startswith("-include") and len(flag) > len("-include"):
            out.append(Path(flag[len("-include") :]))
    return out


def _command(
    cxx: str,
    source: Path,
    out: Path,
    defines: Mapping[str, str],
    includes: Sequence[Path],
    extra: Sequence[str],
    kernel_dir: Path | None = None,
    runtime: bool = False,
    core: Sequence[str] = (),
) -> list[str]:
    cmd = [cxx, *BASE_FLAGS, *strict_build_flags(), f"-I{include_dir()}", *core]
    if runtime:
        cmd += ["-DOPGEN_SIM_EXTERN_RUNTIME=1"]
    cmd += [f"-I{d}" for d in includes]
    cmd += [f"-D{k}={v}" for k, v in sorted(defines.items())]
    cmd += list(extra)
    # __FILE__ too (the messages of a failed assert or ascendc_assert): the launcher puts the
    # source's current directory back in place of the token
    mapped = f"{kernel_dir or source.parent}={KERNEL_DIR_TOKEN}"
    cmd += [f"-fdebug-prefix-map={mapped}", f"-fmacro-prefix-map={mapped}"]
    cmd += ["-o", str(out), str(source)]
    return cmd


# comments (dropped) and string or character literals (kept) of a header
_COMMENT = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def _keep_literal(m: re.Match[bytes]) -> bytes:
    return m.group(0) if m.group(0)[:1] in (b'"', b"'") else b" "


_GLUE_HEADER_DIRS = frozenset({"opgen_torch", "opgen_tf"})
_SIM_HEADERS: dict[Path, tuple[tuple[tuple[str, int, int], ...], str, frozenset[str]]] = {}


_FROZEN_LOCK = threading.Lock()
_FROZEN: dict[Path, tuple[int, tuple[str, frozenset[str]]]] = {}  # root -> (users, value)


@contextlib.contextmanager
def _headers_frozen() -> Iterator[None]:
    """One look at the simulator headers for a batch of builds (build_kernels): each kernel's
    cache key takes the batch's digest instead of walking and stat-ing the headers again."""
    root = include_dir()
    value = _sim_headers()
    with _FROZEN_LOCK:
        users = _FROZEN.get(root, (0, value))[0]
        _FROZEN[root] = (users + 1, value if users == 0 else _FROZEN[root][1])
    try:
        yield
    finally:
        with _FROZEN_LOCK:
            users, value = _FROZEN[root]
            if users <= 1:
                del _FROZEN[root]
            else:
                _FROZEN[root] = (users - 1, value)


def _sim_headers() -> tuple[str, frozenset[str]]:
    """The simulator headers' content digest and every identifier they spell (read again
    only when a header's size or mtime changed)."""
    root = include_dir()
    frozen = _FROZEN.get(root)
    if frozen is not None:
        return frozen[1]
    # the framework glue's headers are keyed by what is compiled from them (native_library)
    files = [p for p in _headers_under(root, True)
             if p.relative_to(root).parts[0] not in _GLUE_HEADER_DIRS]
    stamp = tuple((str(p), (st := p.stat()).st_size, st.st_mtime_ns) for p in files)
    known = _SIM_HEADERS.get(root)
    if known is None or known[0] != stamp:
        h = hashlib.sha256()
        idents: set[bytes] = set()
        for p in files:
            data = p.read_bytes()
            h.update(str(p).encode() + b"\0" + len(data).to_bytes(8, "little") + data)
            idents.update(re.findall(rb"[A-Za-z_]\w*", _COMMENT.sub(_keep_literal, data)))
        known = (stamp, h.hexdigest(), frozenset(i.decode() for i in idents))
        _SIM_HEADERS[root] = known
    return known[1], known[2]


def _separate_runtime(defines: Mapping[str, str], extra: Sequence[str]) -> bool:
    """The shared runtime object fits a kernel whose flags cannot change what the simulator
    headers compile to: extra flags only force-include files (the op_host tiling header) and
    no define names an identifier the headers spell. Anything else compiles whole."""
    i = 0
    while i < len(extra):
        if extra[i] == "-include" and i + 1 < len(extra):
            i += 2
            continue
        return False
    _digest, idents = _sim_headers()
    return not any(k in idents for k in defines)


@dataclass(frozen=True)
class _SimUnit:
    """A unit of the simulator's own, compiled once per compiler, flag set and headers:
    `what` names it in progress lines, `part` in reports of what is built."""

    what: str
    part: str
    fmt: str
    text: str
    suffix: str
    flags: tuple[str, ...]


_RUNTIME = _SimUnit("simulator runtime", "the simulator runtime object", RUNTIME_FORMAT,
                    RUNTIME_UNIT, ".o", ("-c",))
_SCANNER = _SimUnit("raw-pointer scan", "the raw-pointer scan", SCANNER_FORMAT, SCANNER_UNIT,
                    ".so", ("-shared", "-O1"))


def _instances(dtype: str) -> _SimUnit:
    """The API instances of `dtype`, each in a section of its own (opgen_sim/instances.h)."""
    text = ("// @generated by opgen: the simulator's API instances of one dtype "
            "(opgen_sim/instances.h)\n"
            '#include "kernel_operator.h"\n#include "opgen_sim/instances.h"\n'
            "#define OPGEN_SIM_INSTANCE(...) template __VA_ARGS__;\n"
            f"OPGEN_SIM_ALL_INSTANCES_OF(OPGEN_SIM_INSTANCE, {dtype})\n")
    return _SimUnit(f"simulator API instances ({dtype})", f"the {dtype} API instances",
                    INSTANCES_FORMAT.format(dtype=dtype), text, ".o",
                    ("-c", "-DOPGEN_SIM_EXTERN_RUNTIME=1", "-ffunction-sections"))


def _simulator_unit_path(cxx: str, unit: _SimUnit) -> Path:
    """Where the cache keeps a simulator unit (_simulator_unit), built or not."""
    digest, _idents = _sim_headers()
    h = hashlib.sha256("\0".join((unit.fmt, _compiler_identity(cxx), *BASE_FLAGS,
                                  *strict_build_flags(), str(include_dir()), digest,
                                  unit.text, *unit.flags)).encode())
    return (cache_dir() / "runtime" /
            f"{unit.fmt.rsplit('-', 1)[0]}-{h.hexdigest()[:32]}{unit.suffix}")


def shared_parts_missing(cxx: str | None = None) -> list[str]:
    """The simulator's shared parts (runtime object, scan, API instances, precompiled header)
    that neither the user cache nor the prebuilt layer holds for the current compiler, flags
    and headers: what a first build compiles before the kernels' own code. Builds nothing."""
    cxx = cxx or _compiler()
    missing = []
    for unit in (_RUNTIME, _SCANNER, *(_instances(d) for d in INSTANCE_DTYPES)):
        path = _simulator_unit_path(cxx, unit)
        if not path.exists() and prebuilt(path) is None:
            missing.append(unit.part)
    gch = _pch_dir(cxx) / (_PCH_STUB + ".gch")
    if _pch_enabled() and not gch.exists() and prebuilt(gch) is None:
        missing.append("the precompiled simulator header")
    return missing


def _simulator_unit(cxx: str, sim_unit: _SimUnit) -> Path:
    """A unit of the simulator's own compiled once per compiler, flag set and simulator
    headers, into <cache>/kernels/runtime/ (cached), or the prebuilt layer's copy."""
    what, unit_text, flags = sim_unit.what, sim_unit.text, sim_unit.flags
    final = _simulator_unit_path(cxx, sim_unit)
    out_dir = final.parent
    if final.exists():
        return final
    shipped = prebuilt(final)
    if shipped is not None:
        return shipped
    out_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(final) + ".lock"):
        if final.exists():
            return final
        with progress.step(f"compiling the {what} (once per simulator version)"), \
                tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            unit = Path(tmp) / "opgen_sim_unit.cpp"
            unit.write_text(unit_text)
            partial = Path(tmp) / final.name
            # the unit's own lines are the simulator's, under its include directory: a fault
            # report passes over them to the kernel's line (opgen_sim/faults.h, KernelSite; g++
            # names the unit for some lines of an explicit instantiation's code)
            cmd = [cxx, *BASE_FLAGS, *strict_build_flags(), "-DOPGEN_SIM_RUNTIME_UNIT=1",
                   f"-I{include_dir()}", f"-fdebug-prefix-map={tmp}={include_dir() / 'opgen_sim'}",
                   *flags, "-o", str(partial), str(unit)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                  env={**os.environ, "LC_ALL": "C"})
            if proc.returncode != 0:
                raise BuildError(f"compiling the {what} failed:\n{proc.stderr.rstrip()}")
            os.replace(partial, final)
    return final


def instance_object(dtype: str, cxx: str | None = None) -> Path:
    """The API instances of `dtype` (one of INSTANCE_DTYPES) for the current compiler, flags
    and headers (cached): each in a section of its own, so a library keeps the ones it calls."""
    return _simulator_unit(cxx or _compiler(), _instances(dtype))


def instance_dtypes(undefined: Iterable[str]) -> list[str]:
    """The instance dtypes a kernel object calls, from its undefined symbols (mangled): an
    AscendC function template instance whose first template argument is one of them."""
    codes = {code: dtype for dtype, code in INSTANCE_DTYPES.items()}
    found = set()
    for sym in undefined:
        m = _INSTANCE_SYMBOL.match(sym)
        if m is None:
            continue
        rest = sym[m.end() + int(m.group(1)):]
        if not rest.startswith("I"):
            continue
        for code, dtype in codes.items():
            if rest.startswith(code, 1):
                found.add(dtype)
    return [d for d in INSTANCE_DTYPES if d in found]


def _undefined_symbols(obj: Path) -> list[str]:
    proc = subprocess.run(["nm", "-u", "--format=posix", str(obj)], capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"reading the symbols of {obj} failed (nm):\n{proc.stderr.rstrip()}")
    return [line.split(" ", 1)[0] for line in proc.stdout.splitlines() if line]


def runtime_object(cxx: str | None = None) -> Path:
    """The simulator runtime object for the current compiler, flags and headers (cached)."""
    return _simulator_unit(cxx or _compiler(), _RUNTIME)


def scanner_library(cxx: str | None = None) -> Path:
    """The raw-pointer scan's library for the current compiler, flags and headers (cached)."""
    return _simulator_unit(cxx or _compiler(), _SCANNER)


_SCANNERS: dict[Path, Any] = {}


def source_stores_raw(source: Path, cxx: str | None = None) -> bool | None:
    """The raw-pointer scan's verdict on ``source`` and the quoted includes it reaches (True:
    it may store behind the simulator's back, so its launches defer no copy); None when the
    scan cannot be built (the unit then registers its path and is scanned at run time)."""
    cxx = cxx or _compiler()
    try:
        lib_path = scanner_library(cxx)
    except BuildError as exc:
        _log.warning("%s; kernels are scanned at run time instead", exc)
        return None
    scan = _SCANNERS.get(lib_path)
    if scan is None:
        scan = ctypes.CDLL(str(lib_path), mode=os.RTLD_LOCAL).opgen_sim_source_stores_raw
        scan.argtypes, scan.restype = [ctypes.c_char_p], ctypes.c_int
        _SCANNERS[lib_path] = scan
    return bool(scan(os.fsencode(source)))


# A precompiled kernel_operator.h for kernel units that use the runtime object: most of a
# kernel's compile time is parsing the simulator headers and the standard library under them,
# which is the same for every kernel. Built once per compiler, flag set and headers; a kernel
# whose source could make the headers mean something else compiles without it (_pch_fits).
PCH_FORMAT = "opgen-sim-pch-v2"
PCH_ENV = "OPGEN_SIM_PCH"  # 0: compile every kernel without the precompiled header
_PCH_STUB = "opgen_sim_pch.h"
# what may come before a kernel's `#include "kernel_operator.h"` for the precompiled header to
# stand in for it: comments, blank lines, `#pragma once`, standard headers and the simulator's
_INCLUDE = re.compile(r'#\s*include\s*([<"])([^>"]+)[>"]')


def _pch_enabled() -> bool:
    return os.environ.get(PCH_ENV, "") != "0"


def _pch_flags(cxx: str) -> list[str]:
    return [cxx, *BASE_FLAGS, *strict_build_flags(), f"-I{include_dir()}",
            "-DOPGEN_SIM_EXTERN_RUNTIME=1"]


def _pch_fits(source: Path, extra: Sequence[str]) -> bool:
    """Whether compiling ``source`` with kernel_operator.h included first means the same as
    compiling it as written: its text before its own include of kernel_operator.h holds only
    comments, `#pragma once` and includes of standard or simulator headers, and no flag
    force-includes a file of its own."""
    if extra or not _pch_enabled():
        return False
    try:
        text = source.read_bytes()
    except OSError:
        return False
    ours = include_dir()
    for raw in _COMMENT.sub(_keep_literal, text).decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if not line or line.replace(" ", "") == "#pragmaonce":
            continue
        m = _INCLUDE.match(line)
        if m is None:
            return False
        name = m.group(2)
        if name == "kernel_operator.h":
            return True
        if m.group(1) == '"' and not (ours / name).is_file():
            return False
    return False


def _pch_dir(cxx: str) -> Path:
    digest, _idents = _sim_headers()
    h = hashlib.sha256("\0".join((PCH_FORMAT, _compiler_identity(cxx), *_pch_flags(cxx),
                                  digest)).encode())
    return cache_dir() / "pch" / h.hexdigest()[:32]


def precompiled_header(cxx: str | None = None) -> Path | None:
    """The precompiled simulator header (its stub's path, for `-include`) for the current
    compiler, flags and headers, built on first use; None where it cannot be built, and the
    kernels then compile without it."""
    cxx = cxx or _compiler()
    out_dir = _pch_dir(cxx)
    stub = out_dir / _PCH_STUB
    gch = out_dir / (_PCH_STUB + ".gch")
    if gch.exists():
        return stub
    shipped = prebuilt(gch)
    if shipped is not None:
        return shipped.with_name(_PCH_STUB)
    out_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out_dir) + ".lock"):
        if gch.exists():
            return stub
        with progress.step("precompiling the simulator headers (once per simulator version)"):
            stub.write_text("#define OPGEN_SIM_PRECOMPILED 1\n"
                            f"#include {json.dumps(str(include_dir() / 'kernel_operator.h'))}\n")
            fd, tmp_name = tempfile.mkstemp(prefix=".pch.", suffix=".gch.tmp", dir=out_dir)
            os.close(fd)
            cmd = [*_pch_flags(cxx), f"-fdebug-prefix-map={out_dir}={KERNEL_DIR_TOKEN}",
                   "-x", "c++-header", "-o", tmp_name, str(stub)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                  env={**os.environ, "LC_ALL": "C"})
            if proc.returncode != 0:
                Path(tmp_name).unlink(missing_ok=True)
                _log.warning("precompiling the simulator headers failed; kernels compile "
                             "without them:\n%s", proc.stderr.rstrip())
                return None
            os.replace(tmp_name, gch)
    return stub


def _cache_key(
    cxx: str,
    source: Path,
    defines: Mapping[str, str],
    includes: Sequence[Path],
    extra: Sequence[str],
    template: KernelTemplate | None = None,
) -> str:
    h = hashlib.sha256()

    def add(tag: str, data: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    add("format", CACHE_FORMAT.encode())
    add("compiler", _compiler_identity(cxx).encode())
    add("flags", "\0".join((*BASE_FLAGS, *strict_build_flags())).encode())
    add("extra", "\0".join(extra).encode())
    add("defines", "\0".join(f"{k}={v}" for k, v in sorted(defines.items())).encode())
    text = source.read_bytes()
    add("source", text)
    add("aliasing", "\0".join(aliasing_flags(text)).encode())
    add("runtime", b"separate" if _separate_runtime(defines, extra) else b"whole")
    if template is not None:
        add("template", repr(template).encode())
    add("simulator headers", _sim_headers()[0].encode())
    header_files = _headers_under(source.parent, False)
    for d in includes:
        add("include_dir", str(d).encode())
        header_files += _headers_under(d, True)
    header_files += _forced_includes(extra)
    for p in header_files:
        add("header", str(p).encode())
        add("content", p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


def _check_entries(path: Path, source: Path, entries: tuple[str, ...]) -> None:
    lib = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
    if not hasattr(lib, "opgen_sim_launch"):
        raise BuildError(f"{source}: the kernel does not include kernel_operator.h")
    for e in entries:
        if not hasattr(lib, e):
            raise BuildError(
                f"{source}: no kernel entry '{e}'; declare it as "
                f'extern "C" __global__ __aicore__ void {e}(GM_ADDR ..., GM_ADDR workspace, '
                f"GM_ADDR tiling)"
            )


def build_kernel(
    source: str | os.PathLike[str],
    *,
    entry: str | Sequence[str],
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str | os.PathLike[str]] = (),
    extra_flags: Sequence[str] = (),
    template: KernelTemplate | None = None,
) -> KernelLibrary:
    """Compiles ``source`` into the kernel cache, or reuses the cached library.

    With ``template`` (a templated entry), the library holds every instantiation that the
    kernel's ASCENDC_TPL_SEL selects, behind one extern "C" entry that dispatches on the
    launch's tiling key.

    The cache key hashes the source, every simulator header, headers beside the source and in
    ``include_dirs``, the flags, the defines and the compiler binary. The source is compiled by
    its real path, so compile errors name the user's file and line.
    """
    src = Path(source).resolve()
    if not src.is_file():
        raise BuildError(f"kernel source {src} does not exist")
    entries = (entry,) if isinstance(entry, str) else tuple(entry)
    defs = dict(defines or {})
    incs = [Path(d).resolve() for d in include_dirs]
    extra = tuple(extra_flags)
    cxx = _compiler()
    key = _cache_key(cxx, src, defs, incs, extra, template)
    out_dir = cache_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / f"{src.stem}-{key[:32]}.so"
    if not final.exists():
        with FileLock(str(final) + ".lock"):
            if not final.exists():
                shown = ", ".join(f"{k}={v}" for k, v in sorted(defs.items())
                                  if not k.startswith("ORIG_DTYPE_"))  # they mirror DTYPE_*
                runtime = _separate_runtime(defs, extra)
                with progress.step(f"compiling {src.name}" + (f" ({shown})" if shown else "")):
                    if template is None:
                        _compile(cxx, src, final, defs, incs, extra, runtime=runtime)
                    else:
                        _compile_templated(cxx, src, entries, template, final, defs, incs,
                                           extra, runtime)
    _check_entries(final, src, entries)
    return KernelLibrary(final, entries, src, key)


def unit_command(cxx: str, src: Path, out: Path, defs: Mapping[str, str],
                 incs: Sequence[Path], extra: Sequence[str], shown: Path | None = None,
                 runtime: bool = False) -> list[str]:
    """The g++ command for a kernel unit: a whole library, or (``runtime``) an object to link
    with the runtime object, with the precompiled header where it fits. The raw-pointer scan's
    verdict on the source goes in as a force-included header, not as a -D: a macro defined
    before the precompiled header that the header mentions would make g++ refuse it."""
    kernel = shown or src  # the kernel, not a launch unit that includes it
    try:
        text = kernel.read_bytes()
    except OSError:
        text = None
    core = () if text is None else core_defines(text)
    cmd = _command(cxx, src, out, defs, incs, extra, kernel.parent, runtime, core)
    stores = source_stores_raw(src, cxx)  # while the source is here (raw_gm_scan.h)
    verdict = ([] if stores is None else
               ["-include", f"opgen_sim/source_{'stores_raw' if stores else 'stores_nothing'}.h"])
    by_text = [] if text is None else [*declared_mix(text), *aliasing_flags(text)]
    if not runtime:
        cmd[1:1] = [*verdict, *by_text]
        return cmd
    cmd.insert(-3, "-c")
    stub = precompiled_header(cxx) if _pch_fits(shown or src, extra) else None
    if stub is not None:  # first, before any token of the unit; then what it leaves out
        cmd[1:1] = ["-include", str(stub), "-include", _EXTERN_INSTANCES,
                    *(verdict or ["-include", "opgen_sim/register_source.h"]), *by_text]
    else:
        cmd[1:1] = [*verdict, *by_text]
    return cmd


def _compile(
    cxx: str,
    src: Path,
    final: Path,
    defs: Mapping[str, str],
    incs: Sequence[Path],
    extra: Sequence[str],
    shown: Path | None = None,
    runtime: bool = False,
) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.stem}.", suffix=".tmp.so", dir=final.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # the C locale: plain ASCII quotes and English messages, the same on every machine
        env = {**os.environ, "LC_ALL": "C"}
        obj = tmp.with_suffix(".o") if runtime else tmp
        cmd = unit_command(cxx, src, obj, defs, incs, extra, shown, runtime)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        if proc.returncode != 0:
            if runtime:
                obj.unlink(missing_ok=True)
            raise BuildError(f"compiling {shown or src} failed:\n{proc.stderr.rstrip()}",
                             errors=compile_errors(proc.stderr))
        if runtime:
            try:
                # the instance objects' unused sections are dropped (-Wl,--gc-sections); without
                # nm to say which dtypes the kernel calls, every instance object is linked
                try:
                    dtypes = instance_dtypes(_undefined_symbols(obj))
                except OSError:
                    dtypes = list(INSTANCE_DTYPES)
                instances = [str(instance_object(d, cxx)) for d in dtypes]
                proc = link([cxx, *BASE_FLAGS, *linker_flags(cxx), "-o", str(tmp), str(obj),
                             str(runtime_object(cxx)), *instances,
                             *(["-Wl,--gc-sections"] if instances else [])], env)
            finally:
                obj.unlink(missing_ok=True)
            if proc.returncode != 0:
                raise BuildError(f"linking {shown or src} failed:\n{proc.stderr.rstrip()}")
        os.replace(tmp, final)  # atomic: readers see no half-written library
    finally:
        tmp.unlink(missing_ok=True)


def _compile_templated(
    cxx: str,
    src: Path,
    entries: tuple[str, ...],
    template: KernelTemplate,
    final: Path,
    defs: Mapping[str, str],
    incs: Sequence[Path],
    extra: Sequence[str],
    runtime: bool = False,
) -> None:
    if len(entries) != 1:
        raise BuildError(f"{src}: a templated kernel builds one entry, not {', '.join(entries)}")
    # the launch entry includes the kernel, so the kernel's own errors still name its lines
    with tempfile.TemporaryDirectory(dir=final.parent) as tmp:
        unit = Path(tmp) / f"{src.stem}.launch.cpp"
        unit.write_text(template.launch_source(src, entries[0]))
        _compile(cxx, unit, final, defs, incs, extra, shown=src, runtime=runtime)


def kernel_site_path(text: str, source: Path) -> str:
    """A simulator message with the kernel's directory (KERNEL_DIR_TOKEN) put back in."""
    return text.replace(KERNEL_DIR_TOKEN + "/", f"{source.parent}{os.sep}")


def compile_errors(stderr: str) -> tuple[CompileError, ...]:
    """The errors of g++'s output, each once, located in the user's files.

    An error raised inside the simulator's own headers (a static_assert of an API template, a
    macro such as GET_TILING_DATA) is moved to the user's line that led there: g++'s "required
    from here" before it, or its "in expansion of macro" note after it. So every error names
    the kernel's own file and line; the message names the header.
    """
    sim = str(include_dir())
    found: list[CompileError] = []
    required: tuple[str, int, int] | None = None
    pending: tuple[str, str] | None = None  # (header, text) of an error awaiting its macro note

    def add(path: str, row: int, col: int, text: str) -> None:
        error = CompileError(path, row, col, text)
        if error not in found:
            found.append(error)

    def flush() -> None:
        nonlocal pending
        if pending is not None:  # no user line found: the header's own place is all there is
            header, text = pending
            path, row, col = header.rsplit(":", 2)
            add(path, int(row), int(col), text)
            pending = None

    for line in stderr.splitlines():
        if not line.startswith(" ") and line.rstrip().endswith(":") and ": In " in line:
            flush()
            required = None  # "k.cpp: In instantiation of ...:" starts a new error context
            continue
        need = _REQUIRED.match(line)
        if need is not None:
            if not _inside(need["path"], sim):
                required = (need["path"], int(need["line"]), int(need["col"]))
            continue
        m = _DIAGNOSTIC.match(line)
        if m is None:
            continue
        path, row, col, text = m["path"], int(m["line"]), int(m["col"]), m["text"]
        if m["kind"] == "note":
            if pending is not None and text.startswith("in expansion of macro") \
                    and not _inside(path, sim):
                add(path, row, col, pending[1])
                pending = None
            continue
        if m["kind"] not in ("error", "fatal error"):
            continue
        flush()
        if _inside(path, sim):
            text = f"{text} (raised in the simulator's {os.path.relpath(path, sim)})"
            if required is None:
                pending = (f"{path}:{row}:{col}", text)
                continue
            path, row, col = required
        add(path, row, col, text)
    flush()
    return tuple(found)


def _inside(path: str, directory: str) -> bool:
    full = os.path.abspath(path)
    return full == directory or full.startswith(directory + os.sep)


def build_kernels(
    requests: Iterable[BuildRequest | Mapping[str, object]], *, max_workers: int | None = None
) -> list[KernelLibrary]:
    """Builds many kernels in parallel (one g++ per core); results keep the request order."""
    reqs = [r if isinstance(r, BuildRequest) else BuildRequest(**r) for r in requests]  # type: ignore[arg-type]
    if not reqs:
        return []
    workers = max_workers or min(len(reqs) + 1, os.cpu_count() or 1)
    with _headers_frozen(), ThreadPoolExecutor(max_workers=workers) as pool:
        # the simulator runtime object first, on its own core while the kernels compile, then
        # the API instances of the dtypes the kernels' DTYPE_ macros name (the likely ones:
        # a kernel's link builds any other it calls)
        shared = [r for r in reqs if _separate_runtime(dict(r.defines or {}),
                                                       tuple(r.extra_flags))]
        runtime = pool.submit(runtime_object) if shared else None
        named = {v for r in shared for k, v in (r.defines or {}).items()
                 if k.startswith("DTYPE_")}
        # beside it the precompiled header (the kernels' first compile step), then the instances
        pch = [pool.submit(precompiled_header)] if shared and _pch_enabled() else []
        instances = pch + [pool.submit(instance_object, d) for d in INSTANCE_DTYPES
                           if d in named]
        futures = [
            pool.submit(
                build_kernel,
                r.source,
                entry=r.entry,
                defines=r.defines,
                include_dirs=r.include_dirs,
                extra_flags=r.extra_flags,
                template=r.template,
            )
            for r in reqs
        ]
        if runtime is not None:
            runtime.result()
        for f in instances:
            f.result()
        return [f.result() for f in futures]
