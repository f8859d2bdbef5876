"""`opgen config` prints the flags a user's g++ or CMake build needs (pkg-config style)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.cli import main

from .conftest import opgen_config


def test_cflags_name_the_installed_headers_and_the_cpu_debug_switch() -> None:
    flags = opgen_config("--cflags")
    include = Path(next(f for f in flags if f.startswith("-I"))[2:])
    assert (include / "tikicpulib.h").is_file() and (include / "kernel_operator.h").is_file()
    assert {"-std=c++17", "-DASCENDC_CPU_DEBUG=1", "-pthread"} <= set(flags)
    assert opgen_config("--includedir") == [str(include)]


def test_libs_and_combined_output() -> None:
    assert opgen_config("--libs") == ["-pthread"]
    both = opgen_config("--cflags", "--libs")
    assert both[: len(opgen_config("--cflags"))] == opgen_config("--cflags")


def test_no_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 2
    assert "give --cflags, --libs and/or --includedir" in capsys.readouterr().err
