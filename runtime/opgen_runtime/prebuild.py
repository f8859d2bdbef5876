"""`opgen prebuild`: the install's compiled parts, built once into the prebuilt layer
(cachedir.prebuilt_root()) as a wheel would ship them, so that the first use of an op compiles
only the op's own code: the simulator runtime object, the raw-pointer scan, the precompiled
simulator header and, for each installed framework, its precompiled glue header."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from .cachedir import CACHE_ENV, PREBUILT_ENV, prebuilt_root
from .errors import BuildError


def target_root(root: Path | None) -> Path:
    """`root`, or the prebuilt layer (BuildError when it is turned off)."""
    target = root if root is not None else prebuilt_root()
    if target is None:
        raise BuildError(f"the prebuilt layer is turned off ({PREBUILT_ENV}=0); pass a "
                         "directory")
    return target


@contextmanager
def building_into(root: Path) -> Iterator[None]:
    """Build into `root` as the cache, with the prebuilt layer itself not consulted."""
    saved = {k: os.environ.get(k) for k in (CACHE_ENV, PREBUILT_ENV)}
    os.environ[CACHE_ENV] = str(root)
    os.environ[PREBUILT_ENV] = "0"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _simulator_parts() -> list[tuple[str, Callable[[], object]]]:
    from . import build

    return [("simulator runtime object", build.runtime_object),
            ("raw-pointer scan", build.scanner_library),
            ("precompiled simulator header", build.precompiled_header),
            *((f"simulator API instances ({d})", partial(build.instance_object, d))
              for d in build.INSTANCE_DTYPES)]


def _framework_parts() -> list[tuple[str, Callable[[], object]]]:
    parts: list[tuple[str, Callable[[], object]]] = []
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    else:
        from . import torch_library

        parts.append(("PyTorch glue support object and description header",
                      torch_library.precompile_headers))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up banner
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        pass
    else:
        from . import tf_support

        parts.append(("TensorFlow glue support object and description header",
                      tf_support.precompile_headers))
    return parts


def prebuild(root: Path | None = None, frameworks: bool = True) -> list[tuple[str, str]]:
    """Build every part into `root` (default: the prebuilt layer), on as many threads as the
    machine has cores; (part, "ok" or the reason it was skipped) for each."""
    target = target_root(root)
    target.mkdir(parents=True, exist_ok=True)
    parts = _simulator_parts() + (_framework_parts() if frameworks else [])
    results: list[tuple[str, str]] = []
    kept: list[Path] = []
    with building_into(target), ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = [(name, pool.submit(fn)) for name, fn in parts]
        for name, fut in futures:
            try:
                built = fut.result()
            except (BuildError, RuntimeError, OSError) as exc:
                results.append((name, f"skipped: {str(exc).splitlines()[0]}"))
            else:
                results.append((name, "ok" if built is not None else
                                "skipped: the compiler could not build it (see the warning)"))
                kept += [b for b in (built if isinstance(built, list) else [built])
                         if isinstance(b, Path)]
    _prune(target / "kernels", kept, frameworks)
    return results


def _prune(kernels: Path, kept: list[Path], frameworks: bool) -> None:
    """Remove what an earlier prebuild left that this one did not build (an older opgen's or
    framework's parts: nothing would find them again)."""
    keep = {p.resolve() for p in kept} | {p.parent.resolve() for p in kept}
    stale: list[Path] = [*(kernels / "runtime").glob("opgen-sim-*"), *(kernels / "pch").glob("*")]
    if frameworks:
        stale += [*(kernels / "torch").glob("pch-*"), *(kernels / "tf").glob("pch-*"),
                  *(kernels / "torch").glob("opgen-torch-support-*"),
                  *(kernels / "tf").glob("opgen-tf-support-*")]
    for path in stale:
        if path.resolve() in keep or path.suffix == ".lock":
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    for path in stale:  # the locks of what is gone
        if path.suffix == ".lock" and not path.with_suffix("").exists():
            path.unlink(missing_ok=True)
