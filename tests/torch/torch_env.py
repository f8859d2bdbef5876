"""Imported first by every PyTorch test module (a plain module: a conftest.py here would
clash with tests/conftest.py's module name). The tests import the generated package
(generated/python) like a user would, and install registered ops into a private op package
directory (OPGEN_OPP_PATH): processes they start (export loading, DDP workers) find the
kernels there, unaffected by other test runs sharing the user's default directory."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

GENERATED_PYTHON = Path(__file__).resolve().parents[2] / "generated" / "python"
if str(GENERATED_PYTHON) not in sys.path:
    sys.path.insert(0, str(GENERATED_PYTHON))

if "OPGEN_OPP_PATH" not in os.environ:
    _OPP = tempfile.TemporaryDirectory(prefix="opgen-torch-opp-")
    os.environ["OPGEN_OPP_PATH"] = _OPP.name
