"""Kernel launch: runs a built kernel over blockDim simulated cores, in-process or isolated."""

from __future__ import annotations

import ctypes
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import profile as _profile
from .build import KernelLibrary, kernel_site_path
from .errors import ERROR_KINDS, INTERRUPTED_KIND, LaunchError, SimulatorError
from .profile import NUM_COUNTERS, LaunchDetail, LaunchProfile
from .soc import SOC_PROFILES, SocProfile, get_soc

GM_ALIGN = 32
_FLAG_STRICT_DATACOPY = 1
_FLAG_DETAIL = 2  # opgen_sim/detail.h: per-API lanes, unaligned GM accesses, bytes per region
_FLAG_TIMELINE = 4  # and phase spans per block
_MAX_ARGS = 48

GmArgs = Sequence[np.ndarray | None] | Mapping[str, np.ndarray | None]


class _Loaded:
    """A dlopen'ed kernel library with its ctypes functions resolved once."""

    def __init__(self, path: Path) -> None:
        self.cdll = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        fn = self.cdll.opgen_sim_launch
        fn.restype = ctypes.c_int32
        fn.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int32,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_int32,
            ctypes.c_int64,
            ctypes.c_int32,
            ctypes.c_int64,
            ctypes.c_int32,
            ctypes.c_void_p,
        ]
        self.launch = fn
        err = self.cdll.opgen_sim_last_error
        err.restype = ctypes.c_int32
        err.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32)]
        self.last_error = err
        key = self.cdll.opgen_sim_set_tiling_key
        key.restype = None
        key.argtypes = [ctypes.c_uint64]
        self.set_tiling_key = key
        detail = getattr(self.cdll, "opgen_sim_last_detail", None)  # None: an older header
        if detail is not None:
            detail.restype = ctypes.c_int64
            detail.argtypes = [ctypes.c_char_p, ctypes.c_int64]
        self.last_detail = detail
        if self.cdll.opgen_sim_num_counters() != NUM_COUNTERS:
            raise LaunchError(f"{path}: built against another simulator header version; rebuild")
        self.entries: dict[str, int] = {}

    def entry(self, name: str) -> int:
        addr = self.entries.get(name)
        if addr is None:
            try:
                addr = ctypes.cast(getattr(self.cdll, name), ctypes.c_void_p).value or 0
            except AttributeError:
                raise LaunchError(f"the kernel library has no entry '{name}'") from None
            self.entries[name] = addr
        return addr


_LOADED: dict[str, _Loaded] = {}
_TILING_CACHE: OrderedDict[bytes, tuple[np.ndarray, int]] = OrderedDict()
_addressof = ctypes.addressof
_char_from_buffer: Callable[[Any], Any] = ctypes.c_char.from_buffer
_POSITIONAL: dict[int, tuple[str, ...]] = {}
_NAMES_CACHE: dict[tuple[str, ...], bytes] = {}


def _loaded(path: Path) -> _Loaded:
    key = str(path)
    lib = _LOADED.get(key)
    if lib is None:
        lib = _LOADED[key] = _Loaded(path)
    return lib


_UINT8 = np.dtype(np.uint8)


def gm_allocation(nbytes: int) -> int:
    """The bytes a device allocation of ``nbytes`` holds: CANN's aclrtMalloc rounds the size up
    to 32 bytes and adds 32, and a kernel may touch all of it (an unaligned tail is copied in
    whole 32-byte blocks)."""
    return (nbytes + GM_ALIGN - 1) // GM_ALIGN * GM_ALIGN + GM_ALIGN


def aligned_empty(nbytes: int) -> np.ndarray:
    """A uint8 buffer of ``nbytes`` whose data starts on a 32-byte (GM) boundary, with the
    padding of a device allocation of that size behind it (gm_allocation)."""
    raw = np.empty(gm_allocation(nbytes) + GM_ALIGN, dtype=_UINT8)
    # ctypes' buffer address is several times cheaper than __array_interface__ (a dict)
    off = -_addressof(_char_from_buffer(raw)) % GM_ALIGN
    return raw[off : off + nbytes]


def _backed(a: np.ndarray, address: int) -> int:
    """Bytes from ``address`` (inside ``a``) to the end of the memory ``a`` is a view of."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    try:
        start = _addressof(_char_from_buffer(root))
    except (TypeError, ValueError, BufferError):  # read-only: the slower way
        start = root.__array_interface__["data"][0]
    return int(start + root.nbytes - address)


def gm_empty(shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialised array whose data is 32-byte aligned, so launches need not copy it."""
    dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    dims = (shape,) if isinstance(shape, int) else shape
    count = 1
    for d in dims:
        count *= d
    out: np.ndarray = aligned_empty(count * dt.itemsize).view(dt).reshape(dims)
    return out


def _aligned_tiling(tiling: bytes) -> int:
    """Address of an aligned, cached copy of the tiling bytes (kept alive by the cache)."""
    hit = _TILING_CACHE.get(tiling)
    if hit is None:
        buf = aligned_empty(max(len(tiling), 1))
        buf[: len(tiling)] = np.frombuffer(tiling, dtype=np.uint8)
        buf.flags.writeable = False
        hit = _TILING_CACHE[tiling] = (buf, buf.__array_interface__["data"][0])
        if len(_TILING_CACHE) > 256:
            _TILING_CACHE.popitem(last=False)
    return hit[1]


def _positional_names(n: int) -> tuple[str, ...]:
    names = _POSITIONAL.get(n)
    if names is None:
        names = _POSITIONAL[n] = tuple(f"gm_args[{i}]" for i in range(n))
    return names


def launch(
    lib: KernelLibrary,
    entry: str,
    gm_args: GmArgs,
    *,
    block_dim: int,
    tiling: bytes,
    workspace_size: int = 0,
    soc: str | SocProfile = "ascend910b",
    isolated: bool = False,
    strict_datacopy: bool = True,
    max_threads: int = 0,
    tiling_key: int = 0,
) -> LaunchProfile:
    """Runs ``entry`` of ``lib`` on ``block_dim`` simulated cores.

    ``gm_args`` are the kernel's inputs then outputs (numpy arrays, None for an absent optional
    input), as a sequence or a name -> array mapping (names then appear in error messages);
    workspace and tiling are appended. Outputs are written in place. A hardware-rule violation
    raises a SimulatorError subclass; ``isolated=True`` runs the launch in a subprocess so that a
    crashing kernel raises KernelCrash instead of killing this process. ``tiling_key`` is what
    ``TILING_KEY_IS(k)`` compares with in the kernel.
    """
    profile = SOC_PROFILES.get(soc) if isinstance(soc, str) else soc
    if profile is None:
        profile = get_soc(soc)
    if isolated:
        from .isolation import launch_isolated

        return launch_isolated(
            lib,
            entry,
            gm_args,
            block_dim=block_dim,
            tiling=tiling,
            workspace_size=workspace_size,
            soc=profile,
            strict_datacopy=strict_datacopy,
            max_threads=max_threads,
            tiling_key=tiling_key,
        )
    if block_dim < 1:
        raise LaunchError(f"blockDim must be >= 1, got {block_dim}", kernel=entry)
    loaded = _LOADED.get(str(lib.path)) or _loaded(lib.path)
    addr = loaded.entries.get(entry) or loaded.entry(entry)

    if isinstance(gm_args, list | tuple) or not isinstance(gm_args, Mapping):
        arrays = list(gm_args)
        names = _positional_names(len(arrays))
    else:
        names = tuple(gm_args)
        arrays = list(gm_args.values())
    n = len(arrays) + 2
    if n > _MAX_ARGS:
        raise LaunchError(f"at most {_MAX_ARGS - 2} GM arguments, got {len(arrays)}", kernel=entry)
    ptrs = (ctypes.c_void_p * n)()
    sizes = (ctypes.c_int64 * n)()
    copies: list[tuple[np.ndarray, np.ndarray]] = []
    for i, a in enumerate(arrays):
        if a is None:
            continue
        if not isinstance(a, np.ndarray):
            raise LaunchError(
                f"{names[i]} must be a numpy array or None, got {type(a).__name__}", kernel=entry
            )
        try:  # the cheapest way to a writable contiguous array's address
            p = _addressof(_char_from_buffer(a))
        except (TypeError, ValueError, BufferError):
            p = a.__array_interface__["data"][0] if a.flags.c_contiguous else 1
        # A GM buffer is a device allocation of the array's size (gm_allocation). Memory the
        # array does not have behind it is made real by a copy, for an array whose end is not
        # on 32 bytes (a kernel copies its tail in whole blocks); an array ending on 32 bytes
        # with nothing behind it is bounded by its own bytes.
        nbytes = a.nbytes
        size = gm_allocation(nbytes)
        backed = _backed(a, p) if p % GM_ALIGN == 0 else 0
        if p % GM_ALIGN or (backed < size and nbytes % GM_ALIGN):
            c = gm_empty(a.shape, a.dtype)
            c[...] = a
            copies.append((a, c))
            p = c.__array_interface__["data"][0]
        elif backed < size:
            size = nbytes
        ptrs[i] = p
        sizes[i] = size
    ws = None
    if workspace_size > 0:
        ws = aligned_empty(workspace_size)
        ws[:] = 0
        ptrs[n - 2] = ws.__array_interface__["data"][0]
        sizes[n - 2] = gm_allocation(workspace_size)
    ptrs[n - 1] = _aligned_tiling(tiling)
    sizes[n - 1] = len(tiling)
    joined = _NAMES_CACHE.get(names)
    if joined is None:
        joined = _NAMES_CACHE[names] = b"".join(
            s.encode() + b"\0" for s in (*names, "workspace", "tiling")
        )
    counters = (ctypes.c_int64 * (block_dim * NUM_COUNTERS))()
    if tiling_key:
        if not 0 <= tiling_key < 2**64:
            raise LaunchError(f"tiling_key {tiling_key} is not a uint64", kernel=entry)
        loaded.set_tiling_key(tiling_key)
    flags = _FLAG_STRICT_DATACOPY if strict_datacopy else 0
    session = _profile.ACTIVE
    if session is not None:
        flags |= _FLAG_DETAIL | (_FLAG_TIMELINE if session.timeline else 0)
    t0 = time.perf_counter_ns()
    rc = loaded.launch(
        addr,
        n,
        ptrs,
        sizes,
        joined,
        block_dim,
        profile.ub_bytes,
        flags,
        len(tiling),
        max_threads,
        counters,
    )
    wall = time.perf_counter_ns() - t0
    if rc:
        raise _error(loaded, entry, profile, lib.source)
    for orig, c in copies:
        if orig.flags.writeable:
            orig[...] = c
    prof = LaunchProfile(entry, profile.name, profile.ub_bytes, block_dim, counters, wall)
    if session is not None:
        prof.detail = _detail(loaded, (*names, "workspace", "tiling"), ptrs, sizes)
        session.record(prof, (arrays, copies, ws))
    del ws
    return prof


def _detail(loaded: _Loaded, names: Sequence[str], ptrs: Any, sizes: Any) -> LaunchDetail | None:
    """The detail of the launch just made on this thread (None from a library built before
    the simulator had it)."""
    if loaded.last_detail is None:
        return None
    buf = ctypes.create_string_buffer(1 << 16)
    n = loaded.last_detail(buf, len(buf))
    if n >= len(buf):
        buf = ctypes.create_string_buffer(n + 1)
        loaded.last_detail(buf, len(buf))
    return LaunchDetail.parse(buf.value.decode(errors="replace"), names,
                              [p or 0 for p in ptrs], list(sizes))


def _error(loaded: _Loaded, entry: str, soc: SocProfile, source: Path) -> SimulatorError:
    buf = ctypes.create_string_buffer(4096)
    block = ctypes.c_int32(-1)
    kind = loaded.last_error(buf, len(buf), ctypes.byref(block))
    text = kernel_site_path(buf.value.decode(errors="replace"), source)
    api, _, detail = text.partition(": ")
    if kind == INTERRUPTED_KIND:  # Ctrl-C stopped the launch; the process goes on
        raise KeyboardInterrupt(f"kernel '{entry}': {detail}")
    cls = ERROR_KINDS.get(kind, SimulatorError)
    if cls.__name__ == "UnifiedBufferOverflow":
        detail += f" [SoC {soc.name}: UB {soc.ub_bytes} bytes]"
    return cls(f"{api}: {detail}", kernel=entry, block=block.value, api=api)
