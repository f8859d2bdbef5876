"""The TensorFlow tests import the generated package (generated/python) like a user would.
Importing `opgen_ops.tf` builds the package's one op library (cached by content hash in the
kernel cache, so it compiles at most once per change) and loads it; the session fixture does
that once."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

# Before TensorFlow is imported: no INFO/WARNING log spam on stderr.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
GENERATED_PYTHON = ROOT / "generated" / "python"
if str(GENERATED_PYTHON) not in sys.path:
    sys.path.insert(0, str(GENERATED_PYTHON))


@pytest.fixture(scope="session")
def tf_ops() -> Any:
    import opgen_ops.tf as ops

    return ops
