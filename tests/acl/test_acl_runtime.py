"""acl/acl.h on the CPU: CANN's return codes, aclrtMalloc's rounding and the recorded messages,
from a C++ driver built with `g++ $(opgen config --cflags)`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .conftest import PROGRAMS, config

CXX = os.environ.get("CXX", "g++")


@pytest.fixture(scope="module")
def codes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("acl-codes")
    exe = out / "acl_codes"
    # -Wall -Wextra -Werror: CANN's samples build their drivers so
    build = subprocess.run([CXX, *config("--cflags"), "-Wall", "-Wextra", "-Werror",
                            str(PROGRAMS / "acl_codes.cpp"), "-o", str(exe), *config("--libs")],
                           capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, cwd=out)
    assert run.returncode == 0, run.stderr
    pairs = (line.split("=", 1) for line in run.stdout.splitlines())
    result = {k: v for k, v in pairs}
    result["stderr"] = run.stderr
    return result


# CANN's values: ACL_ERROR_INVALID_PARAM 100000, ACL_ERROR_REPEAT_INITIALIZE 100002,
# ACL_ERROR_REPEAT_FINALIZE 100037, ACL_ERROR_RT_PARAM_INVALID 107000,
# ACL_ERROR_RT_INVALID_DEVICEID 107001.
EXPECTED = {
    "init": 0, "init_again": 100002, "set_device_1": 107001, "set_device_0": 0, "get_device": 0,
    "malloc_zero": 100000, "malloc": 0,
    "memcpy_h2d_160": 0, "memcpy_h2d_161": 107000, "memcpy_count_gt_destmax": 107000,
    "memcpy_bad_kind": 100000, "memcpy_swapped_kind": 107000, "memcpy_null": 100000,
    "memset": 0, "memcpy_d2h": 0, "memcpy_default": 0, "memset_past": 107000,
    "free_inside": 107000, "free": 0, "free_again": 107000, "free_null": 100000,
    "free_host_ptr": 107000, "malloc_host": 0, "free_host": 0, "free_host_again": 107000,
    "create_stream": 0, "sync_stream": 0, "destroy_stream": 0, "sync_dead_stream": 107000,
    "destroy_null_stream": 100000, "create_context": 0, "get_context": 0,
    "destroy_context": 0, "destroy_context_again": 107000,
    "reset_device": 0, "finalize": 0, "finalize_again": 100037,
}


@pytest.mark.parametrize("call", sorted(EXPECTED))
def test_return_code(codes: dict[str, str], call: str) -> None:
    assert int(codes[call]) == EXPECTED[call]


def test_malloc_rounds_up_to_32_plus_32_and_the_message_says_so(codes: dict[str, str]) -> None:
    # 100 bytes requested: 160 usable (the 161st byte fails)
    assert codes["msg_161"] == (
        "aclrtMemcpy(ACL_MEMCPY_HOST_TO_DEVICE): dst bytes [0, 161) run past the end of device "
        "buffer aclrtMalloc#0 (160 bytes usable, 100 requested)")
    assert codes["msg_after"] == "[]"  # aclGetRecentErrMsg clears what it returns
    assert "[ERROR][opgen-sim][acl] aclrtFree: " in codes["stderr"]
    assert "(aclError 107000)" in codes["stderr"]


def test_memset_and_copies_move_the_bytes(codes: dict[str, str]) -> None:
    assert codes["back_159"] == "3"
    assert codes["device"] == "0"


def test_context_and_float16(codes: dict[str, str]) -> None:
    assert codes["context_is_current"] == "1"
    assert codes["fp16_roundtrip"] == "0.333252"  # float16(1/3), round to nearest even
    assert codes["fp16_bits"] == "31743"  # 0x7bff, the largest finite half


def test_acl_headers_compile_as_the_samples_include_them(tmp_path: Path) -> None:
    src = tmp_path / "main.cpp"
    src.write_text('#include "acl/acl.h"\n#include "tikicpulib.h"\n'
                   "int main() { aclError e = ACL_ERROR_NONE; aclrtStream s = nullptr;\n"
                   "  aclrtCreateStream(&s); aclrtDestroyStream(s); return e; }\n")
    build = subprocess.run([CXX, *config("--cflags"), "-Wall", "-Werror",
                            "-D_GLIBCXX_USE_CXX11_ABI=0", "-c", str(src), "-o",
                            str(tmp_path / "main.o")], capture_output=True, text=True,
                           check=False)
    assert build.returncode == 0, build.stderr
