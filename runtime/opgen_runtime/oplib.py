"""Operator libraries: the seed's `libelement_add.so`, one file per op.

An operator library is a real shared object that carries one simulator kernel build per
dtype combination of the op (DTYPE_<NAME> macros differ per build) as embedded blobs, and a
JSON manifest naming its kernels. `load_operator_library` opens it with the dynamic loader
(so a truncated file, garbage or another architecture is refused by the same machinery that
would refuse it on a device), reads the manifest, and loads the variants on demand.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import struct
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

from . import progress
from .build import BuildRequest, KernelLibrary, _compiler, build_kernels, cache_dir
from .cachedir import cache_root
from .dtypes import dtype_defines
from .errors import SimulatorError
from .metadef import OpDef
from .tiling_header import kernel_tiling_header

MANIFEST_FORMAT = "opgen-oplib-1"
_ELF_MACHINES = {"x86_64": 62, "aarch64": 183, "arm64": 183}


class LibraryError(SimulatorError):
    """A file given as an operator library is not one (garbage, truncated, wrong arch...)."""


@dataclass(frozen=True)
class KernelVariant:
    """One build of a kernel: its entry name and the dtype of every tensor."""

    entry: str
    dtypes: Mapping[str, str]
    blob: int


@dataclass(frozen=True)
class EntrySignature:
    """What the kernel frontend read from a kernel entry, carried in the library so that a
    metadef written by hand (the seed's: no tiling section) can still launch it."""

    params: tuple[str, ...]  # every GM_ADDR parameter: inputs, outputs, workspace, tiling
    tiling: Mapping[str, Any] | None  # the tiling struct's layout, as a metadef's "tiling"

    def to_json(self) -> dict[str, Any]:
        return {"params": list(self.params), "tiling": self.tiling}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EntrySignature:
        return cls(tuple(data["params"]), data.get("tiling"))


@dataclass
class OperatorLibrary:
    path: Path
    op_name: str
    variants: tuple[KernelVariant, ...]
    _cdll: Any = field(repr=False, default=None)
    _loaded: dict[int, KernelLibrary] = field(default_factory=dict, repr=False)
    signatures: Mapping[str, EntrySignature] = field(default_factory=dict)
    op_host_blob: int | None = None

    @property
    def kernel_names(self) -> tuple[str, ...]:
        return tuple(sorted({v.entry for v in self.variants}))

    def variant_for(self, entry: str, dtypes: Mapping[str, str]) -> KernelVariant | None:
        for v in self.variants:
            if v.entry == entry and all(v.dtypes.get(k) == d for k, d in dtypes.items()):
                return v
        return None

    def kernel(self, variant: KernelVariant) -> KernelLibrary:
        """The variant's shared object, extracted once into the cache and loaded."""
        lib = self._loaded.get(variant.blob)
        if lib is None:
            target, digest = self._extract(variant.blob, "variants", self.op_name)
            lib = KernelLibrary(target, (variant.entry,), self.path, digest)
            self._loaded[variant.blob] = lib
        return lib

    def op_host_library(self) -> Path | None:
        """The op's compiled op_host (its TilingFunc, InferShape), when the library carries one:
        a library from `opgen build` runs without the op_host sources."""
        if self.op_host_blob is None:
            return None
        return self._extract(self.op_host_blob, "ophost", f"lib{self.op_name}_host")[0]

    def _extract(self, blob: int, folder: str, stem: str) -> tuple[Path, str]:
        start = _symbol_address(self._cdll, f"opgen_blob_{blob}")
        end = _symbol_address(self._cdll, f"opgen_blob_{blob}_end")
        data = ctypes.string_at(start, end - start)
        digest = hashlib.sha256(data).hexdigest()
        target = cache_dir() / folder / f"{stem}-{digest[:32]}.so"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
        return target, digest


def _symbol_address(cdll: Any, name: str) -> int:
    address = ctypes.cast(getattr(cdll, name), ctypes.c_void_p).value
    if not address:
        raise LibraryError(f"operator library symbol {name} is missing")
    return int(address)


def check_elf(path: Path) -> None:
    """Refuse files that are not a shared object for this machine, with the reason."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
    except OSError as exc:
        raise LibraryError(f"cannot read {path}: {exc.strerror}") from None
    if len(head) < 20 or head[:4] != b"\x7fELF":
        raise LibraryError(f"{path} is not a kernel library: not an ELF shared object (first "
                           f"bytes {head[:4]!r}); build one with `opgen build`")
    if head[4] != 2:
        raise LibraryError(f"{path} is a 32-bit ELF file; this machine needs a 64-bit library")
    machine = int.from_bytes(head[18:20], "little")
    want = _ELF_MACHINES.get(platform.machine())
    if want is not None and machine != want:
        names = {62: "x86_64", 183: "aarch64", 40: "arm", 3: "i386", 243: "riscv"}
        raise LibraryError(f"{path} was built for another architecture "
                           f"({names.get(machine, f'ELF machine {machine}')}); this machine is "
                           f"{platform.machine()}: rebuild it here with `opgen build`")
    e_type = int.from_bytes(head[16:18], "little")
    if e_type != 3:
        raise LibraryError(f"{path} is an ELF file but not a shared object (e_type {e_type})")
    _check_elf_extent(path, head)


def _check_elf_extent(path: Path, head: bytes) -> None:
    """A truncated library must be refused before dlopen: mapping a segment past the end of
    the file kills the process with SIGBUS instead of failing."""
    size = path.stat().st_size
    (phoff, shoff) = struct.unpack_from("<QQ", head, 32)
    (phentsize, phnum, shentsize, shnum) = struct.unpack_from("<HHHH", head, 54)
    truncated = phoff + phentsize * phnum > size or shoff + shentsize * shnum > size
    if not truncated:
        with path.open("rb") as f:
            f.seek(phoff)
            table = f.read(phentsize * phnum)
        for i in range(phnum):
            p_type, _flags, p_offset, _vaddr, _paddr, p_filesz = struct.unpack_from(
                "<IIQQQQ", table, i * phentsize)
            if p_type == 1 and p_offset + p_filesz > size:  # PT_LOAD
                truncated = True
                break
    if truncated:
        raise LibraryError(f"{path} is truncated ({size} bytes, shorter than its ELF headers "
                           "say): copy or rebuild it (`opgen build`)")


def open_library(path: Path) -> OperatorLibrary:
    check_elf(path)
    try:
        cdll = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
    except OSError as exc:
        raise LibraryError(f"{path} cannot be loaded (truncated or damaged?): {exc}") from None
    try:
        manifest_ptr = ctypes.c_char_p.in_dll(cdll, "opgen_library_manifest")
    except ValueError:
        single = hasattr(cdll, "opgen_sim_launch")
        hint = " It is a single kernel built by build_kernel;" if single else ""
        message = (f"{path} is a shared object but not an opgen operator library (no "
                   f"manifest).{hint} Build an operator library with `opgen build`.")
        raise LibraryError(message) from None
    try:
        manifest = json.loads(manifest_ptr.value or b"")
    except json.JSONDecodeError:
        raise LibraryError(f"{path}: the operator library manifest is damaged") from None
    if manifest.get("format") != MANIFEST_FORMAT:
        raise LibraryError(f"{path} was built by another opgen version (library format "
                           f"{manifest.get('format')!r}, expected {MANIFEST_FORMAT}); rebuild it")
    variants = tuple(KernelVariant(k["entry"], dict(k["dtypes"]), int(k["blob"]))
                     for k in manifest["kernels"])
    # "entries" is absent from libraries built without the kernel frontend (build_kernel users)
    signatures = {name: EntrySignature.from_json(s)
                  for name, s in manifest.get("entries", {}).items()}
    host = manifest.get("op_host")
    return OperatorLibrary(path, manifest["op_name"], variants, cdll, signatures=signatures,
                           op_host_blob=int(host) if host is not None else None)


def _tensor_names(op: OpDef) -> list[str]:
    return [t.name for t in (*op.inputs, *op.outputs)]


def kernel_builds(op: OpDef, error: type[Exception] = LibraryError,
                  extra_flags: Sequence[str] = ()) -> list[tuple[dict[str, str], BuildRequest]]:
    """Every build of `op`'s kernel, one per dtype combination: (tensor -> dtype, request).

    The one recipe of an op's kernel, for its operator library and for the variants the
    PyTorch and TensorFlow libraries embed: DTYPE_<NAME> macros per combination, and, as
    CANN's build does, the op_host tiling header force-included first; the spec's
    include_dirs on the include path."""
    if op.kernel_source is None:
        raise error(f"{op.op_name}: the metadef names no kernel source")
    names = _tensor_names(op)
    combos = [dict(zip(names, combo, strict=True)) for combo in op.combinations]
    flags = tuple(extra_flags)
    if op.tiling_header is not None:  # its classes as the kernel's global names
        header = kernel_tiling_header(op.tiling_header, cache_root() / "tiling_headers",
                                      op.op_type)
        flags = ("-include", str(header), "-include", "opgen_sim/optiling_visible.h", *flags)
    # CANN's build names the macros after the IR names (srcList -> DTYPE_SRCLIST)
    ir = {t.name: t.ir for t in (*op.inputs, *op.outputs)}
    return [(c, BuildRequest(op.kernel_source, op.kernel_entry,
                             dtype_defines({ir[n]: d for n, d in c.items()}),
                             include_dirs=op.include_dirs, extra_flags=flags,
                             template=op.kernel_template)) for c in combos]


def build_operator_library(op: OpDef, *, extra_flags: Sequence[str] = (),
                           signature: EntrySignature | None = None) -> Path:
    """Build every dtype combination of `op`'s kernel and bundle them into lib<op>.so
    (content-addressed in the kernel cache; an unchanged op costs no compile). `signature`,
    the entry as the kernel frontend read it, goes into the manifest (`opgen build` gives it)."""
    builds = kernel_builds(op, extra_flags=extra_flags)
    combos = [c for c, _ in builds]
    libs = build_kernels([r for _, r in builds])
    signatures = {op.kernel_entry: signature} if signature is not None else {}
    host = None
    if op.op_host:  # the op's TilingFunc travels with its kernels, as in a CANN op package
        from .ophost import build_op_host

        host = build_op_host(op.op_host, name=op.op_name, include_dirs=op.host_include_dirs)
    return bundle(op.op_name, [(op.kernel_entry, c, lib.path) for c, lib in zip(combos, libs,
                                                                                 strict=True)],
                  signatures, op_host=host)


def bundle(op_name: str, variants: Sequence[tuple[str, Mapping[str, str], Path]],
           signatures: Mapping[str, EntrySignature] | None = None,
           op_host: Path | None = None) -> Path:
    manifest: dict[str, Any] = {
        "format": MANIFEST_FORMAT, "op_name": op_name,
        "kernels": [{"entry": e, "dtypes": dict(d), "blob": i}
                    for i, (e, d, _p) in enumerate(variants)],
    }
    if signatures:
        manifest["entries"] = {name: s.to_json() for name, s in sorted(signatures.items())}
    blobs = [p for _e, _d, p in variants]
    if op_host is not None:
        manifest["op_host"] = len(blobs)
        blobs.append(op_host)
    text = json.dumps(manifest, sort_keys=True)
    h = hashlib.sha256(text.encode())
    for p in blobs:
        h.update(p.read_bytes())
    out = cache_dir() / "oplib" / f"lib{op_name}-{h.hexdigest()[:24]}.so"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    asm = "".join(
        f'.section .rodata.opgen_blob_{i},"a"\n.balign 64\n'
        f".global opgen_blob_{i}\nopgen_blob_{i}:\n.incbin \"{p}\"\n"
        f".global opgen_blob_{i}_end\nopgen_blob_{i}_end:\n.byte 0\n"
        for i, p in enumerate(blobs))
    source = (
        f"__asm__({json.dumps(asm)});\n"
        '#define OPGEN_EXPORT extern "C" __attribute__((visibility("default")))\n'
        f"OPGEN_EXPORT const char* opgen_library_manifest = {json.dumps(text)};\n"
    )
    with FileLock(str(out) + ".lock"):
        if out.exists():
            return out
        with progress.step(f"bundling lib{op_name}.so"), \
                tempfile.TemporaryDirectory(dir=out.parent) as tmp:
            src = Path(tmp) / "bundle.cpp"
            src.write_text(source)
            partial = Path(tmp) / out.name
            proc = subprocess.run([_compiler(), "-shared", "-fPIC", "-o", str(partial), str(src)],
                                  capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise LibraryError(f"bundling lib{op_name}.so failed:\n{proc.stderr}")
            os.replace(partial, out)
    return out
