"""Isolated launch: the kernel runs in a child process, so a crash becomes a KernelCrash.

The request goes to the child on its stdin and the result comes back on a pipe of its own (the
kernel's printf owns stdout): no temporary files. The child dies with its parent (Linux:
PR_SET_PDEATHSIG), so killing the parent never leaves a child running a kernel.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import errors
from .build import KernelLibrary
from .profile import LaunchProfile
from .soc import SocProfile

_SIGNAL_TEXT = {
    "SIGSEGV": "segmentation fault: an invalid memory access",
    "SIGBUS": "bus error: a misaligned or unmapped memory access",
    "SIGFPE": "arithmetic exception, e.g. integer division by zero",
    "SIGABRT": "abort(), e.g. a failed assert or std::terminate",
    "SIGILL": "illegal instruction",
    "SIGKILL": "killed (out of memory?)",
}


def launch_isolated(
    lib: KernelLibrary,
    entry: str,
    gm_args: Any,
    *,
    block_dim: int,
    tiling: bytes,
    workspace_size: int,
    soc: SocProfile,
    strict_datacopy: bool,
    max_threads: int,
    tiling_key: int = 0,
) -> LaunchProfile:
    """Runs the launch in ``python -m opgen_runtime.isolation`` and copies outputs back."""
    if isinstance(gm_args, Mapping):
        names: list[str] | None = list(gm_args)
        arrays = list(gm_args.values())
    else:
        names, arrays = None, list(gm_args)
    request = {
        "lib": lib,
        "entry": entry,
        "names": names,
        "arrays": arrays,
        "kwargs": {
            "block_dim": block_dim,
            "tiling": tiling,
            "workspace_size": workspace_size,
            "soc": soc,
            "strict_datacopy": strict_datacopy,
            "max_threads": max_threads,
            "tiling_key": tiling_key,
        },
    }
    env = dict(os.environ)
    pkg_parent = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    payload = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
    res_r, res_w = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "opgen_runtime.isolation", str(res_w), str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, pass_fds=(res_w,),
        )
    except BaseException:
        os.close(res_r)
        raise
    finally:
        os.close(res_w)
    chunks: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(res_r, chunks), daemon=True)
    reader.start()
    try:  # Ctrl-C or any error here kills the child (Popen's context manager would wait)
        _out, err = proc.communicate(payload)
        reader.join()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    stderr = err.decode(errors="replace")
    data = b"".join(chunks)
    if proc.returncode != 0 or not data:
        raise _crash(entry, proc.returncode, stderr)
    result = pickle.loads(data)
    if "error" in result:
        cls_name, detail, block, api = result["error"]
        cls = getattr(errors, cls_name, errors.SimulatorError)
        raise cls(detail, kernel=entry, block=block, api=api)
    for orig, new in zip(arrays, result["arrays"], strict=True):
        if orig is not None and orig.flags.writeable:
            np.copyto(orig, new)
    p = result["profile"]
    return LaunchProfile(entry, soc.name, soc.ub_bytes, block_dim, p["raw"], p["wall_ns"])


def _crash(entry: str, rc: int, stderr: str) -> errors.KernelCrash:
    tail = "\n".join(stderr.strip().splitlines()[-15:])
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        what = _SIGNAL_TEXT.get(name, "killed by a signal")
        msg = f"the kernel crashed with {name} ({what}) in an isolated launch"
    else:
        name = ""
        msg = f"the isolated launch process exited with code {rc}"
    if tail:
        msg += f"; its stderr:\n{tail}"
    return errors.KernelCrash(msg, kernel=entry, signal_name=name)


def _read_all(fd: int, chunks: list[bytes]) -> None:
    with os.fdopen(fd, "rb") as f:
        chunks.append(f.read())


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this process when the thread that started it ends."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before prctl took effect
        os._exit(1)


def _child(res_fd: str, parent: str) -> None:
    _die_with_parent(int(parent))
    from .launcher import launch

    req = pickle.loads(sys.stdin.buffer.read())
    arrays = req["arrays"]
    gm = dict(zip(req["names"], arrays, strict=True)) if req["names"] is not None else arrays
    result: dict[str, Any]
    try:
        prof = launch(req["lib"], req["entry"], gm, isolated=False, **req["kwargs"])
        result = {"arrays": arrays, "profile": {"raw": list(prof._raw), "wall_ns": prof.wall_ns}}
    except errors.SimulatorError as e:
        result = {"error": (type(e).__name__, e.detail, e.block, e.api)}
    with os.fdopen(int(res_fd), "wb") as f:
        f.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
