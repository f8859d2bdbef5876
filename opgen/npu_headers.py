"""The C++ headers the PyTorch ops' NPU kernels compile against, fetched from PyPI without an NPU:
the `torch-npu` wheel's `torch_npu/include/` (torch_npu's and op-plugin's headers, CANN's acl),
and, when that torch-npu requires another torch than the installed one, that torch wheel's
`torch/include/`. `make npu-headers` (python -m opgen.npu_headers) downloads them into
<cache root>/npu ($OPGEN_CACHE_DIR, else the user cache dir; never the repository);
tests/torch/test_npu_kernel.py type-checks the generated NPU kernels against them (docs/npu.md).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from opgen_runtime import torch_npu_build
from opgen_runtime.build import cache_root

MANIFEST = "headers.json"


@dataclass(frozen=True)
class NpuHeaders:
    torch_npu_version: str
    torch_version: str  # the torch torch-npu requires
    torch_npu_include: Path  # .../torch_npu/include
    torch_include: Path | None  # a downloaded torch's include/, None: the installed torch's

    def compile_flags(self, torch_include: Path) -> list[str]:
        """The NPU build's flags (opgen_runtime.torch_npu_build: torch_npu's include dirs,
        op-plugin's, CURRENT_VERSION) with this torch's headers (`torch_include`: the installed
        torch's when torch-npu requires that version)."""
        t = self.torch_include or torch_include
        return [*torch_npu_build.compile_flags(self.torch_npu_include, self.torch_version),
                f"-isystem{t}", f"-isystem{t / 'torch' / 'csrc' / 'api' / 'include'}"]


def npu_dir() -> Path:
    return cache_root() / "npu"


def installed_torch_version() -> str:
    import torch

    return str(torch.__version__).split("+")[0]


def load() -> NpuHeaders | None:
    """The downloaded headers, or None when `make npu-headers` has not run."""
    path = npu_dir() / MANIFEST
    try:
        data = json.loads(path.read_text())
        h = NpuHeaders(data["torch_npu_version"], data["torch_version"],
                       Path(data["torch_npu_include"]),
                       Path(data["torch_include"]) if data["torch_include"] else None)
    except (OSError, ValueError, KeyError):
        return None
    if not (h.torch_npu_include / "third_party" / "op-plugin").is_dir():
        return None
    return h


def _download(requirement: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    name = requirement.split("==")[0].replace("-", "_")
    version = requirement.split("==")[1]
    found = sorted(dest.glob(f"{name}-{version}-*.whl"))
    if not found:
        print(f"opgen: downloading {requirement} (no dependencies) into {dest}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", requirement, "--no-deps",
                        "--only-binary=:all:", "--progress-bar", "off", "-d", str(dest)],
                       check=True)
        found = sorted(dest.glob(f"{name}-{version}-*.whl"))
    if not found:
        raise SystemExit(f"opgen: pip did not leave a {requirement} wheel in {dest}")
    return found[0]


def _extract(wheel: Path, prefix: str, dest: Path) -> None:
    """Unpack the members under `prefix` (e.g. torch_npu/include/) only."""
    with zipfile.ZipFile(wheel) as z:
        members = [m for m in z.namelist() if m.startswith(prefix)]
        if not members:
            raise SystemExit(f"opgen: {wheel.name} has no {prefix}")
        z.extractall(dest, members)


def _required_torch(wheel: Path) -> str | None:
    """The torch version a torch-npu wheel requires (Requires-Dist: torch==2.13.0.*)."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(m for m in z.namelist() if m.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    m = re.search(r"^Requires-Dist: torch\s*==\s*([0-9][0-9.]*[0-9])", text, re.M)
    return m.group(1) if m else None


def fetch(torch_npu_version: str) -> NpuHeaders:
    root = npu_dir()
    wheels = root / "wheels"
    npu_wheel = _download(f"torch-npu=={torch_npu_version}", wheels)
    npu_root = root / f"torch_npu-{torch_npu_version}"
    if not (npu_root / "torch_npu" / "include" / "third_party" / "op-plugin").is_dir():
        _extract(npu_wheel, "torch_npu/include/", npu_root)
    torch_version = _required_torch(npu_wheel) or installed_torch_version()
    torch_include: Path | None = None
    if torch_version != installed_torch_version():
        torch_wheel = _download(f"torch=={torch_version}", wheels)
        torch_root = root / f"torch-{torch_version}"
        if not (torch_root / "torch" / "include" / "torch").is_dir():
            _extract(torch_wheel, "torch/include/", torch_root)
        torch_include = torch_root / "torch" / "include"
    h = NpuHeaders(torch_npu_version, torch_version, npu_root / "torch_npu" / "include",
                   torch_include)
    (root / MANIFEST).write_text(json.dumps({
        "torch_npu_version": h.torch_npu_version, "torch_version": h.torch_version,
        "torch_npu_include": str(h.torch_npu_include),
        "torch_include": str(h.torch_include) if h.torch_include else "",
    }, indent=2) + "\n")
    return h


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m opgen.npu_headers",
        description="Download the torch-npu wheel's headers (and, if it needs another torch, "
                    "that torch's headers) into opgen's cache, for the NPU kernels' compile "
                    "check.")
    parser.add_argument("--torch-npu-version", default=None,
                        help="torch-npu version (default: the installed torch's version, which "
                             "torch-npu releases track)")
    args = parser.parse_args(argv)
    h = fetch(args.torch_npu_version or installed_torch_version())
    print(f"torch-npu {h.torch_npu_version} headers: {h.torch_npu_include}")
    print(f"torch {h.torch_version} headers: "
          f"{h.torch_include or 'the installed torch (same version)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
