"""End to end: a small model of custom ops trains, alone and under DistributedDataParallel
(gloo, two processes, registration on rank 0 only) with the gradients of one-process training.
The model and both runs are examples/ddp_train.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
import ddp_train  # noqa: E402


@pytest.fixture(scope="module")
def single() -> dict[str, Any]:
    return ddp_train.train_single(steps=10)


def test_model_of_custom_ops_trains(single: dict[str, Any]) -> None:
    losses = single["losses"]
    assert losses[-1] < 0.5 * losses[0], f"loss did not fall: {losses}"


def test_ddp_gradients_equal_single_process(single: dict[str, Any], tmp_path: Path) -> None:
    ddp = ddp_train.train_ddp(steps=10, workdir=tmp_path)
    assert ddp_train.compare(ddp, single) == []
