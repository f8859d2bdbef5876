"""The aclnn tests build op packages into a private opgen cache (its toolkit and opp/ too), so
that they neither see nor replace the package a user installed."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["OPGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("opgen-cache"))
