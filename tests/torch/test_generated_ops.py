"""Runs the generated per-op PyTorch tests (generated/python/<package>/torch/tests/) from
`pytest` at the repository root: each generated module's test functions are collected here."""

from __future__ import annotations

import importlib

import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.torch import OPS

for _op in OPS:
    _module = importlib.import_module(f"opgen_ops.torch.tests.test_{_op}")
    for _name, _fn in vars(_module).items():
        if _name.startswith("test_") and callable(_fn):
            globals()[_name] = _fn
