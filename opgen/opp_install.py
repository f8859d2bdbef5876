"""Installing a project's op package into a toolkit: the layout CANN's custom-op package installs
under $ASCEND_OPP_PATH/vendors/<vendor>, reduced to what aclnn drivers use:

    <opp>/vendors/config.ini                       load_priority=<vendor>
    <opp>/vendors/<vendor>/op_api/include/aclnn_<stem>.h
    <opp>/vendors/<vendor>/op_api/lib/libcust_opapi.so

The op_api directory is replaced whole and atomically (staged beside it, then renamed into
place), so a driver never sees headers of one build with the library of another, and the ops of
a previous package do not linger: like CANN's, a vendor holds one package at a time.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from filelock import FileLock

DEFAULT_VENDOR = "customize"
LIBRARY_NAME = "libcust_opapi.so"


def op_api_dir(opp: Path, vendor: str = DEFAULT_VENDOR) -> Path:
    return opp / "vendors" / vendor / "op_api"


def install_op_api(library: Path, headers: Sequence[Path], opp: Path,
                   vendor: str = DEFAULT_VENDOR) -> Path:
    """Install `library` as libcust_opapi.so and `headers` (the generated aclnn_<stem>.h) as the
    op_api of `vendor` under `opp`; returns the op_api directory."""
    dest = op_api_dir(opp, vendor)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(dest.parent / ".install.lock")):
        stage = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".op_api-"))
        try:
            (stage / "include").mkdir()
            (stage / "lib").mkdir()
            for h in sorted(headers):
                shutil.copyfile(h, stage / "include" / h.name)
            shutil.copyfile(library, stage / "lib" / LIBRARY_NAME)
            (stage / "lib" / LIBRARY_NAME).chmod(0o755)
            stage.chmod(0o755)
            old = None
            if dest.exists():
                old = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".op_api-old-"))
                os.replace(dest, old / "op_api")
            os.replace(stage, dest)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            if stage.exists():
                shutil.rmtree(stage, ignore_errors=True)
        config = opp / "vendors" / "config.ini"
        if not config.exists():
            config.write_text(f"load_priority={vendor}\n", encoding="utf-8")
    return dest
