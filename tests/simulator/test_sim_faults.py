"""Failures inside a kernel: a rule violation names the kernel's line; a real fault (SIGFPE,
SIGSEGV) ends only its block and is reported with the block and the line; a launch that does
not end is stopped by OPGEN_SIM_TIMEOUT or Ctrl-C. The process survives each, and the next
launch of the same library works."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

# One misbehaviour per `mode`, on block `badBlock` (every block when badBlock is 99). Each line
# a test expects in a message carries a `// @name` marker.
FAULTS_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct FaultsTilingData {
    int32_t mode;
    uint32_t n;
    uint32_t zero;
    uint32_t badBlock;
};
REGISTER_TILING_DEFAULT(FaultsTilingData);

extern "C" __global__ __aicore__ void faults(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const bool bad = t.badBlock == 99 || GetBlockIdx() == t.badBlock;
    const int32_t mode = bad ? t.mode : 0;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> que;
    TBuf<QuePosition::VECCALC> buf;
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.n);
    zGm.SetGlobalBuffer((__gm__ float*)z, t.n);
    pipe.InitBuffer(que, 1, 256);
    pipe.InitBuffer(buf, 1024);
    if (mode == 1) {
        LocalTensor<float> a = buf.Get<float>();
        Add(a[3], a[3], a[3], 8);  // @rule
    }
    if (mode == 2) {
        zGm.SetValue(0, static_cast<float>(t.n / t.zero));  // @div
    }
    if (mode == 3) {
        LocalTensor<float> a = buf.Get<float>();
        a.SetSize(1024);  // @setsize
    }
    if (mode == 4) {
        __gm__ float* p = reinterpret_cast<__gm__ float*>(static_cast<uintptr_t>(t.zero));
        *p = 1.0f;  // @null
    }
    if (mode == 5) {
        volatile uint32_t spin = 0;
        while (t.n != 0) {  // @loop
            spin = spin + 1;
        }
    }
    if (mode == 6) {
        LocalTensor<float> a = buf.Get<float>();
        float* p = &a(0);
        p[(196608 - a.GetPhyAddr()) / sizeof(float)] = 1.0f;  // @pastub
    }
    if (mode == 8) {  // a UB address (past the first page) taken for a pointer
        LocalTensor<float> a = buf.Get<float>();
        __ubuf__ float* p = (__ubuf__ float*)(uintptr_t)(a.GetPhyAddr() + 8192);
        *p = 1.0f;  // @ubaddr
    }
    if (mode == 9) {
        assert(t.zero != 0);  // @assert
    }
    if (mode == 10) {
        assert(t.n < 4, "n is %u, at most 3 expected\n", t.n);  // @assertfmt
    }
    if (mode == 11) {
        std::abort();  // @abort
    }
    if (t.mode == 7) {  // block 0 never reaches the barrier the others wait at
        volatile uint32_t spin = 0;
        while (GetBlockIdx() == 0 && t.n != 0) {
            spin = spin + 1;
        }
        SyncAll();
    }
    // mode 0: z = x + 1
    LocalTensor<float> a = que.AllocTensor<float>();
    DataCopy(a, xGm, t.n);
    Adds(a, a, 1.0f, t.n);
    DataCopy(zGm, a, t.n);
    que.FreeTensor(a);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "FaultsTilingData",
    [("mode", "int32_t"), ("n", "uint32_t"), ("zero", "uint32_t"), ("badBlock", "uint32_t")],
)
N = 16


def line_of(marker: str) -> int:
    for i, text in enumerate(FAULTS_CPP.splitlines(), start=1):
        if text.rstrip().endswith(f"// @{marker}"):
            return i
    raise AssertionError(marker)


@pytest.fixture(scope="module")
def faults_lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = tmp_path_factory.mktemp("faults") / "faults.cpp"
    src.write_text(FAULTS_CPP)
    return rt.build_kernel(src, entry="faults")


def run(lib: rt.KernelLibrary, mode: int, *, block_dim: int = 2, bad_block: int = 1,
        **kw: object) -> tuple[np.ndarray, np.ndarray, rt.LaunchProfile]:
    x = rt.gm_empty(N, np.float32)
    x[:] = np.arange(N, dtype=np.float32)
    z = rt.gm_empty(N, np.float32)
    z[:] = 7.0
    prof = rt.launch(
        lib, "faults", {"x": x, "z": z}, block_dim=block_dim,
        tiling=LAYOUT.pack({"mode": mode, "n": N, "zero": 0, "badBlock": bad_block}),
        **kw,  # type: ignore[arg-type]
    )
    return x, z, prof


def assert_still_works(lib: rt.KernelLibrary) -> None:
    x, z, _ = run(lib, 0)
    np.testing.assert_array_equal(z, x + 1)


def site(lib: rt.KernelLibrary, marker: str) -> str:
    return f" at {lib.source}:{line_of(marker)}"


def test_a_rule_violation_names_the_kernel_line(faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.AlignmentError) as info:
        run(faults_lib, 1)
    e = info.value
    assert (e.kernel, e.block, e.api) == ("faults", 1, "Add")
    assert str(e).startswith("kernel 'faults', block 1: Add: ")
    assert "not 32-byte aligned" in str(e)
    assert str(e).endswith(site(faults_lib, "rule")), str(e)
    assert_still_works(faults_lib)


def test_set_size_past_the_buffer_is_a_rule_error_at_the_call(
        faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.LocalMemoryOutOfBounds) as info:
        run(faults_lib, 3)
    e = info.value
    assert e.api == "LocalTensor::SetSize"
    assert "size 1024 x float = 4096 bytes from byte 0 of its buffer runs past the buffer's " \
           "1024 bytes" in str(e)
    assert str(e).endswith(site(faults_lib, "setsize")), str(e)
    assert_still_works(faults_lib)


def test_integer_division_by_zero_ends_the_block_with_its_line(
        faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(faults_lib, 2)
    e = info.value
    assert (e.block, e.api, e.signal_name) == (1, "SIGFPE", "SIGFPE")
    assert str(e) == f"kernel 'faults', block 1: SIGFPE: integer division by zero" \
                     f"{site(faults_lib, 'div')}"
    assert_still_works(faults_lib)


def test_a_null_gm_pointer_write_ends_the_block_with_its_line(
        faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(faults_lib, 4, bad_block=0)
    e = info.value
    assert (e.block, e.signal_name) == (0, "SIGSEGV")
    assert "invalid memory access at address 0x0 (a null pointer" in str(e)
    assert str(e).endswith(site(faults_lib, "null")), str(e)
    assert_still_works(faults_lib)


def test_a_unified_buffer_address_used_as_a_pointer_says_so(faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(faults_lib, 8, bad_block=0)
    e = info.value
    assert (e.block, e.signal_name) == (0, "SIGSEGV")
    assert "(a Unified Buffer address used as a pointer: LocalTensor::GetPhyAddr() is an offset " \
           "into the UB" in str(e), str(e)
    assert str(e).endswith(site(faults_lib, "ubaddr")), str(e)
    assert_still_works(faults_lib)


@pytest.mark.parametrize(
    "mode,marker,text",
    [(9, "assert", "assert: assertion failed: t.zero != 0 at "),
     (10, "assertfmt", "assert: assertion failed: t.n < 4 at "),
     (11, "abort", "SIGABRT: abort() called in the kernel: std::abort, or a failed assert of the "
                   "C library")],
)
def test_a_failed_assert_or_abort_ends_the_block_not_the_process(
        faults_lib: rt.KernelAssertError, mode: int, marker: str, text: str) -> None:
    # the kernel's assert(expr[, fmt, args...]) (reference "assert") is kernel_operator.h's, not
    # the C library's, whose abort() would end the Python process
    with pytest.raises(rt.KernelAssertError) as info:
        run(faults_lib, mode)
    message = str(info.value)
    assert message.startswith(f"kernel 'faults', block 1: {text}"), message
    if mode == 10:  # the message formatted from fmt and args after the condition's line
        assert message.endswith(f"{site(faults_lib, marker)}: n is 16, at most 3 expected"), message
    else:
        assert message.endswith(site(faults_lib, marker)), message
    assert_still_works(faults_lib)


def test_a_raw_write_past_the_unified_buffer_faults(faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(faults_lib, 6)
    e = info.value
    assert e.signal_name == "SIGSEGV"
    assert "past the end of the Unified Buffer (UB offset 196608 of 196608 bytes)" in str(e)
    assert str(e).endswith(site(faults_lib, "pastub")), str(e)
    assert_still_works(faults_lib)


def test_an_endless_kernel_is_stopped_by_the_timeout(
        faults_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_TIMEOUT", "2")
    t0 = time.monotonic()
    with pytest.raises(rt.LaunchTimeout) as info:
        run(faults_lib, 5, block_dim=3, bad_block=99, max_threads=2)
    took = time.monotonic() - t0
    assert 1.9 < took < 10, took
    e = info.value
    assert e.kernel == "faults" and e.api == "launch"
    assert re.search(r"kernel 'faults': launch: the launch ran longer than 2 s "
                     r"\(OPGEN_SIM_TIMEOUT\) and was stopped: blockDim 3, blocks still running: "
                     r"\d, \d \(0 ended, 1 not started\)$", str(e)), str(e)
    monkeypatch.delenv("OPGEN_SIM_TIMEOUT")
    assert_still_works(faults_lib)
    assert_still_works(faults_lib)


def test_the_timeout_also_ends_a_cross_core_wait(
        faults_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_TIMEOUT", "1")
    with pytest.raises(rt.LaunchTimeout, match=r"blockDim 2, blocks still running: 0, 1 "
                                               r"\(0 ended, 0 not started\)$"):
        run(faults_lib, 7, block_dim=2, bad_block=99, max_threads=2)
    monkeypatch.delenv("OPGEN_SIM_TIMEOUT")
    assert_still_works(faults_lib)


def test_ctrl_c_stops_a_launch_and_raises_keyboard_interrupt(
        faults_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_SIM_TIMEOUT", "30")  # should the interrupt be missed
    # Ctrl-C reaches a launch that has run for 0.1 s (docs/simulator.md)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run(faults_lib, 5, block_dim=2, bad_block=1)
            time.sleep(5)  # a KeyboardInterrupt pending after the launch arrives here
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 6
    assert_still_works(faults_lib)


PARENT = r"""
import sys, numpy as np, opgen_runtime as rt
sys.path.insert(0, sys.argv[2])
from test_sim_faults import LAYOUT, N
lib = rt.build_kernel(sys.argv[1], entry="faults")
x = rt.gm_empty(N, np.float32); z = rt.gm_empty(N, np.float32)
print("launching", flush=True)
rt.launch(lib, "faults", {"x": x, "z": z}, block_dim=1, isolated=True,
          tiling=LAYOUT.pack({"mode": 5, "n": N, "zero": 0, "badBlock": 0}))
"""


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG)")
def test_an_isolated_child_dies_with_its_parent(
        faults_lib: rt.KernelLibrary, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "OPGEN_SIM_TIMEOUT": "60"}
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PARENT), str(faults_lib.source),
         str(Path(__file__).parent)],
        stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "launching"
        deadline = time.monotonic() + 30
        children: list[int] = []
        while not children and time.monotonic() < deadline:
            children = _children(parent.pid)
            time.sleep(0.05)
        assert children, "the isolated child did not start"
        time.sleep(0.5)  # the child is in the endless kernel now
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{c}").exists() for c in children):
        time.sleep(0.05)
    alive = [c for c in children if Path(f"/proc/{c}").exists()
             and "Z" not in Path(f"/proc/{c}/stat").read_text().split()[2]]
    assert not alive, f"the isolated child {alive} outlived its parent"
    assert list(tmp.iterdir()) == []


def test_an_isolated_launch_reports_a_fault_with_block_and_line(
        faults_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(faults_lib, 2, isolated=True)
    e = info.value
    assert (e.block, e.signal_name) == (1, "SIGFPE")
    assert str(e).endswith(site(faults_lib, "div")), str(e)
