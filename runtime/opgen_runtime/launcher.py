"""Kernel launch: runs a built kernel over blockDim simulated cores, in-process or isolated."""

from __future__ import annotations

import array
import ctypes
import mmap
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
    return aligned_empty_at(nbytes)[0]


def aligned_empty_at(nbytes: int) -> tuple[np.ndarray, int]:
    """aligned_empty(nbytes) and its address."""
    raw, off, addr = _aligned_raw(nbytes)
    return raw[off : off + nbytes], addr


def zeroed_workspace(nbytes: int) -> tuple[np.ndarray, int]:
    """A launch's workspace, zeroed, and its address: fresh anonymous memory (a device
    allocation's size, page-aligned), whose pages the system gives zeroed when the kernel first
    touches them, and unmaps when the array goes. CANN's system workspace alone is 16 MiB a
    launch, which a buffer cleared in full cost on every call (ops-nn's foreach_exp, 4096x1024
    float32: 14% of its time in the clearing) while most kernels touch a few bytes of it."""
    mem = mmap.mmap(-1, gm_allocation(nbytes))
    buf = np.frombuffer(mem, dtype=_UINT8)  # keeps the mapping alive
    return buf, _addressof(_char_from_buffer(buf))


def _aligned_raw(nbytes: int) -> tuple[np.ndarray, int, int]:
    """A buffer holding a device allocation of ``nbytes`` (gm_allocation) on a 32-byte
    boundary: the buffer, the allocation's offset in it and its address."""
    raw = np.empty(gm_allocation(nbytes) + GM_ALIGN, dtype=_UINT8)
    # ctypes' buffer address is several times cheaper than __array_interface__ (a dict)
    addr = _addressof(_char_from_buffer(raw))
    off = -addr % GM_ALIGN
    return raw, off, addr + off


def gm_empty_at(shape: tuple[int, ...], dtype: np.dtype[Any]) -> tuple[np.ndarray, int]:
    """gm_empty(shape, dtype) and its address."""
    count = 1
    for d in shape:
        count *= d
    raw, off, addr = _aligned_raw(count * dtype.itemsize)
    # a view of the buffer itself (its base): the launch finds the allocation in one step
    return np.ndarray(shape, dtype, raw, off), addr


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
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    return gm_empty_at(dims, dt)[0]


def _aligned_tiling(tiling: bytes) -> tuple[np.ndarray, int]:
    """An aligned, cached, read-only copy of the tiling bytes, and its address."""
    hit = _TILING_CACHE.get(tiling)
    if hit is None:
        buf = aligned_empty(max(len(tiling), 1))
        buf[: len(tiling)] = np.frombuffer(tiling, dtype=np.uint8)
        buf.flags.writeable = False
        hit = _TILING_CACHE[tiling] = (buf, buf.__array_interface__["data"][0])
        if len(_TILING_CACHE) > 256:
            _TILING_CACHE.popitem(last=False)
    return hit


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
    if isinstance(gm_args, list | tuple) or not isinstance(gm_args, Mapping):
        arrays = list(gm_args)
        names = _positional_names(len(arrays))
    else:
        names = tuple(gm_args)
        arrays = list(gm_args.values())
    key = (str(lib.path), entry, names, block_dim, tiling, workspace_size, profile.name,
           profile.ub_bytes, strict_datacopy, max_threads, tiling_key)
    prepared = _PREPARED.get(key)
    if prepared is None:
        prepared = Prepared(lib, entry, names, block_dim=block_dim, tiling=tiling,
                            workspace_size=workspace_size, soc=profile,
                            strict_datacopy=strict_datacopy, max_threads=max_threads,
                            tiling_key=tiling_key)
        if len(_PREPARED) > 256:
            _PREPARED.clear()
        _PREPARED[key] = prepared
    return prepared.run(arrays)


class Prepared:
    """A launch with everything but the GM arrays decided: the entry's address, the argument
    names, the tiling's aligned copy, the flags. `run` takes the arrays. What launch() makes
    (and caches) for each new combination of its other arguments; the registry keeps one per
    call signature."""

    __slots__ = ("addr", "block_dim", "entry", "flags", "joined", "lib", "loaded", "max_threads",
                 "n", "names", "profile", "tiling", "tiling_addr", "tiling_buf", "tiling_key",
                 "workspace_size", "zero_counters")

    def __init__(self, lib: KernelLibrary, entry: str, names: Sequence[str], *, block_dim: int,
                 tiling: bytes, workspace_size: int = 0, soc: SocProfile,
                 strict_datacopy: bool = True, max_threads: int = 0,
                 tiling_key: int = 0) -> None:
        if block_dim < 1:
            raise LaunchError(f"blockDim must be >= 1, got {block_dim}", kernel=entry)
        n = len(names) + 2
        if n > _MAX_ARGS:
            raise LaunchError(f"at most {_MAX_ARGS - 2} GM arguments, got {len(names)}",
                              kernel=entry)
        if tiling_key and not 0 <= tiling_key < 2**64:
            raise LaunchError(f"tiling_key {tiling_key} is not a uint64", kernel=entry)
        self.loaded = _LOADED.get(str(lib.path)) or _loaded(lib.path)
        self.addr = self.loaded.entries.get(entry) or self.loaded.entry(entry)
        self.lib, self.entry, self.names, self.n = lib, entry, tuple(names), n
        joined = _NAMES_CACHE.get(self.names)
        if joined is None:
            joined = _NAMES_CACHE[self.names] = b"".join(
                s.encode() + b"\0" for s in (*self.names, "workspace", "tiling"))
        self.joined = joined
        self.block_dim, self.profile, self.tiling = block_dim, soc, tiling
        # the buffer is held here too: the cache may drop it while this launch is kept
        self.tiling_buf, self.tiling_addr = _aligned_tiling(tiling)
        self.workspace_size = workspace_size
        self.flags = _FLAG_STRICT_DATACOPY if strict_datacopy else 0
        self.max_threads, self.tiling_key = max_threads, tiling_key
        self.zero_counters = bytes(8 * block_dim * NUM_COUNTERS)

    def run(self, arrays: Sequence[np.ndarray | None],
            known: Sequence[tuple[np.ndarray, int]] = ()) -> LaunchProfile:
        """Launch on `arrays` (the GM arguments, in order), then on the `known` ones: arrays
        whose 32-byte aligned address is given, each with a whole device allocation
        (gm_allocation) behind it, as the registry's outputs are."""
        n = self.n
        ptrs = [0] * n
        sizes = [0] * n
        copies: list[tuple[np.ndarray, np.ndarray]] = []
        names = self.names
        i = -1
        for i, a in enumerate(arrays):
            if a is None:
                continue
            if not isinstance(a, np.ndarray):
                raise LaunchError(f"{names[i]} must be a numpy array or None, got "
                                  f"{type(a).__name__}", kernel=self.entry)
            try:  # the cheapest way to a writable contiguous array's address
                p = _addressof(_char_from_buffer(a))
            except (TypeError, ValueError, BufferError):
                p = a.__array_interface__["data"][0] if a.flags.c_contiguous else 1
            # A GM buffer is a device allocation of the array's size (gm_allocation). Memory
            # the array does not have behind it is made real by a copy, for an array whose end
            # is not on 32 bytes (a kernel copies its tail in whole blocks); an array ending
            # on 32 bytes with nothing behind it is bounded by its own bytes.
            nbytes = a.nbytes
            size = gm_allocation(nbytes)
            base = a.base
            if p & 31:
                backed = 0
            elif base is None:  # owns its memory, from its first byte: nothing behind it
                backed = nbytes
            elif base.__class__ is np.ndarray and base.base is None:  # a view of a buffer
                try:
                    backed = _addressof(_char_from_buffer(base)) + base.nbytes - p
                except (TypeError, ValueError, BufferError):
                    backed = _backed(a, p)
            else:
                backed = _backed(a, p)
            if p & 31 or (backed < size and nbytes & 31):
                c = gm_empty(a.shape, a.dtype)
                c[...] = a
                copies.append((a, c))
                p = c.__array_interface__["data"][0]
            elif backed < size:
                size = nbytes
            ptrs[i] = p
            sizes[i] = size
        for k, (a, p) in enumerate(known, i + 1):
            ptrs[k] = p
            sizes[k] = gm_allocation(a.nbytes)
        ws = None
        if self.workspace_size > 0:
            ws, ptrs[n - 2] = zeroed_workspace(self.workspace_size)
            sizes[n - 2] = gm_allocation(self.workspace_size)
        ptrs[n - 1] = self.tiling_addr
        sizes[n - 1] = len(self.tiling)
        # one int64 array: the pointers, then the sizes (cheaper than two ctypes arrays)
        args = array.array("q", ptrs + sizes)
        at = args.buffer_info()[0]
        counters = array.array("q", self.zero_counters)
        loaded = self.loaded
        if self.tiling_key:
            loaded.set_tiling_key(self.tiling_key)
        flags = self.flags
        session = _profile.ACTIVE
        if session is not None:
            flags |= _FLAG_DETAIL | (_FLAG_TIMELINE if session.timeline else 0)
        profile = self.profile
        t0 = time.perf_counter_ns()
        rc = loaded.launch(self.addr, n, at, at + 8 * n, self.joined, self.block_dim,
                           profile.ub_bytes, flags, len(self.tiling), self.max_threads,
                           counters.buffer_info()[0])
        wall = time.perf_counter_ns() - t0
        if rc:
            raise _error(loaded, self.entry, profile, self.lib.source)
        for orig, c in copies:
            if orig.flags.writeable:
                orig[...] = c
        prof = LaunchProfile(self.entry, profile.name, profile.ub_bytes, self.block_dim,
                             counters, wall)
        if session is not None:
            prof.detail = _detail(loaded, (*names, "workspace", "tiling"), ptrs, sizes)
            session.record(prof, ([*arrays, *(a for a, _ in known)], copies, ws))
        del ws
        return prof


_PREPARED: dict[tuple[Any, ...], Prepared] = {}


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
