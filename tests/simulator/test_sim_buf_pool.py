"""TBufPool (opgen_sim/buf_pool.h): pools that split a TPipe's Unified Buffer among queues and
buffers, pools that share bytes, pools cut from pools, a kernel's own pool class on
EXTERN_IMPL_BUFPOOL, and TPipe::Reset. The kernel is this file's own; each test names the Ascend C
API reference page it checks (asc-devkit docs: TBufPool, InitBufPool, TPipe Reset)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

N = 64  # floats per buffer: 256 bytes

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

class OwnPool {  // places its buffers back to front
public:
    OwnPool() { Init(); }
    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len) {
        auto h = GetBufHandle(GetCurBufSize());
        que.InitStartBufHandle(h, num, len);
        for (uint32_t i = 0; i < num; ++i) {
            que.InitBufHandle(this, i, GetBufHandle(GetCurBufSize() + i),
                              GetCurAddr() + (num - 1 - i) * len, len);
        }
        SetCurAddr(GetCurAddr() + num * len);
        SetCurBufSize(GetCurBufSize() + num);
        return true;
    }
    EXTERN_IMPL_BUFPOOL(OwnPool, TPosition::VECCALC, 4);
};

// out: UB offsets and values the kernel saw, per mode
extern "C" __global__ __aicore__ void pool_kernel(GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t mode = *reinterpret_cast<const int32_t*>(tiling);
    constexpr uint32_t n = 64, bytes = n * sizeof(float);
    GlobalTensor<int32_t> outGm;
    outGm.SetGlobalBuffer((__gm__ int32_t*)out, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> head;
    pipe.InitBuffer(head, 96);  // the pools start past it
    if (mode == 0) {  // two pools over the same bytes (reuse) and a pool cut into two
        TBufPool<TPosition::VECCALC> p1, p2, p0, p3, p4;
        pipe.InitBufPool(p1, 2 * bytes);
        pipe.InitBufPool(p2, 2 * bytes, p1);
        TQue<TPosition::VECIN, 1> q1;
        TBuf<TPosition::VECCALC> b1, b2;
        p1.InitBuffer(q1, 1, bytes);
        p1.InitBuffer(b1, bytes);
        p2.InitBuffer(b2, 2 * bytes);
        LocalTensor<float> t1 = q1.AllocTensor<float>();
        Duplicate(t1, 5.0f, n);
        LocalTensor<float> all = b2.Get<float>();
        outGm.SetValue(0, static_cast<int32_t>(t1.GetPhyAddr()));
        outGm.SetValue(1, static_cast<int32_t>(b1.Get<float>().GetPhyAddr()));
        outGm.SetValue(2, static_cast<int32_t>(all.GetPhyAddr()));
        outGm.SetValue(3, static_cast<int32_t>(all.GetValue(3)));  // p1's queue's 5
        q1.FreeTensor(t1);
        p1.Reset();
        pipe.InitBufPool(p0, 4 * bytes);
        p0.InitBufPool(p3, bytes);
        TBuf<TPosition::VECCALC> b0;
        p0.InitBuffer(b0, bytes);
        p0.InitBufPool(p4, bytes, p3);
        TBuf<TPosition::VECCALC> b3, b4;
        p3.InitBuffer(b3, bytes);
        p4.InitBuffer(b4, bytes);
        outGm.SetValue(4, static_cast<int32_t>(b0.Get<float>().GetPhyAddr()));
        outGm.SetValue(5, static_cast<int32_t>(b3.Get<float>().GetPhyAddr()));
        outGm.SetValue(6, static_cast<int32_t>(b4.Get<float>().GetPhyAddr()));
    } else if (mode == 1) {  // a kernel's own pool class
        OwnPool own;
        pipe.InitBufPool(own, 2 * bytes);
        TQue<TPosition::VECIN, 2> q;
        own.InitBuffer(q, 2, bytes);
        LocalTensor<float> a = q.AllocTensor<float>(), b = q.AllocTensor<float>();
        outGm.SetValue(0, static_cast<int32_t>(a.GetPhyAddr()));
        outGm.SetValue(1, static_cast<int32_t>(b.GetPhyAddr()));
        q.FreeTensor(a);
        q.FreeTensor(b);
    } else if (mode == 2) {  // more buffers than the pool's bufIDSize
        TBufPool<TPosition::VECCALC, 2> p;
        pipe.InitBufPool(p, 4 * bytes);
        TQue<TPosition::VECIN, 3> q;
        p.InitBuffer(q, 3, bytes);
    } else if (mode == 3) {  // a buffer past the pool's length
        TBufPool<TPosition::VECCALC> p;
        pipe.InitBufPool(p, bytes);
        TBuf<TPosition::VECCALC> b;
        p.InitBuffer(b, 2 * bytes);
        outGm.SetValue(0, static_cast<int32_t>(b.Get<float>().GetPhyAddr()));
    } else if (mode == 4) {  // TPipe::Reset gives the bytes back; the pipe stays the kernel's
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, bytes);
        outGm.SetValue(0, static_cast<int32_t>(b.Get<float>().GetPhyAddr()));
        pipe.Reset();
        TBuf<TPosition::VECCALC> c;
        pipe.InitBuffer(c, bytes);
        outGm.SetValue(1, static_cast<int32_t>(c.Get<float>().GetPhyAddr()));
        outGm.SetValue(2, GetTPipePtr() == &pipe ? 1 : 0);
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("buf_pool")) / "pool_kernel.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="pool_kernel")


def _run(lib: rt.KernelLibrary, mode: int) -> np.ndarray:
    out = rt.gm_empty(64, np.int32)
    out[:] = -1
    rt.launch(lib, "pool_kernel", [out], block_dim=1, tiling=struct.pack("<ii", mode, 0))
    return np.asarray(out)


def test_shared_and_divided_pools_place_buffers_as_documented(lib: rt.KernelLibrary) -> None:
    """InitBufPool.md: a pool made with shareBuf starts where that pool starts (the two reuse
    the same bytes: a buffer of the second sees what the first's queue wrote); a pool cut from a
    pool takes that pool's next free bytes, and a pool sharing it starts at its start. Every
    buffer is 32-byte aligned; the pipe's own TBuf (96 bytes) comes first."""
    out = _run(lib, 0)
    b = 4 * N
    assert list(out[:3]) == [96, 96 + b, 96]
    assert out[3] == 5
    p0 = 96 + 2 * b  # after p1's bytes, which the pipe keeps
    assert list(out[4:7]) == [p0 + b, p0, p0]


def test_a_kernel_pool_class_places_its_own_buffers(lib: rt.KernelLibrary) -> None:
    """TBufPool.md, EXTERN_IMPL_BUFPOOL: a kernel's own pool class gets the pool state and its
    InitBuffer puts each buffer of a queue where it chooses (here back to front)."""
    out = _run(lib, 1)
    assert list(out[:2]) == [96 + 4 * N, 96]


def test_more_buffers_than_bufidsize_is_an_error(lib: rt.KernelLibrary) -> None:
    """TBufPool.md (bufIDSize: the buffers a pool can hand out)."""
    with pytest.raises(rt.SimulatorError, match=r"TBufPool::InitBuffer.*at most 2 buffers"):
        _run(lib, 2)


def test_a_buffer_past_the_pool_overlaps_on_hardware_and_fails_in_strict_mode(
        lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    """TBufPool InitBuffer.md: the buffers must fit the pool; CANN checks it in its CPU-debug
    build only, the hardware lets the buffer run on. So it runs by default and is an error
    under OPGEN_SIM_STRICT=1."""
    assert _run(lib, 3)[0] == 96
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.SimulatorError, match=r"pool's 256 bytes .* hold 256 more.*asks for 512"):
        _run(lib, 3)


def test_pipe_reset_gives_the_bytes_back(lib: rt.KernelLibrary) -> None:
    """TPipe Reset.md: after Reset the pipe hands out its bytes again from the start, and
    GetTPipePtr() is still the pipe."""
    out = _run(lib, 4)
    assert list(out[:3]) == [96, 0, 1]
