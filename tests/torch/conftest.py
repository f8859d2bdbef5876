"""The PyTorch tests import the generated package (generated/python) like a user would."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

GENERATED_PYTHON = Path(__file__).resolve().parents[2] / "generated" / "python"
if str(GENERATED_PYTHON) not in sys.path:
    sys.path.insert(0, str(GENERATED_PYTHON))
