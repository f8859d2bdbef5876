"""asc_dump (utils/debug/asc_dump.h): a kernel prints elements of GM, UB, L1 and L0C under
DumpTensor's header; UB/L1/L0C operands may be GetPhyAddr() offsets, read in the memory of the
core running the block; an offset past the memory is a located error."""

from __future__ import annotations

from pathlib import Path

from .conftest import Result, opgen

PROGRAM = r"""
#include "acl/acl.h"
#include "kernel_operator.h"
#include "utils/debug/asc_dump.h"

__global__ __cube__ void dump_all(GM_ADDR g, uint32_t ubOff)
{
    AscendC::LocalMemAllocator<AscendC::Hardware::UB> ub;
    AscendC::LocalTensor<int32_t> u = ub.Alloc<int32_t, 64>();
    for (int i = 0; i < 8; ++i) u.SetValue(i, 10 * i - 3);
    asc_dump_ubuf<int32_t>((__ubuf__ int32_t*)(u.GetPhyAddr() + ubOff), 7, 3);
    AscendC::LocalMemAllocator<AscendC::Hardware::L1> l1;
    AscendC::LocalTensor<half> skip = l1.Alloc<AscendC::TPosition::A1, half>(16);
    AscendC::LocalTensor<half> a = l1.Alloc<AscendC::TPosition::A1, half>(16);
    a.SetValue(0, half(1.5f));
    a.SetValue(1, half(-2.25f));
    asc_dump_l1buf<half>((__cbuf__ half*)a.GetPhyAddr(), 8, 2);
    AscendC::LocalMemAllocator<AscendC::Hardware::L0C> l0c;
    AscendC::LocalTensor<float> c = l0c.Alloc<AscendC::TPosition::CO1, float>(256);
    c.SetValue(1, 0.5f);
    asc_dump_cbuf<float>((__cc__ float*)c.GetPhyAddr(), 9, 2);
    asc_dump_gm<uint8_t>((__gm__ uint8_t*)g + 1, 10, 4);
}

int main(int argc, char** argv)
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    uint8_t host[8] = {0, 200, 1, 2, 3, 4, 5, 6};
    void* g = nullptr;
    aclrtMalloc(&g, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(g, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE);
    uint32_t ubOff = argc > 1 ? 256 * 1024 : 0;
    dump_all<<<1, nullptr, nullptr>>>((GM_ADDR)g, ubOff);
    aclrtFree(g);
    aclFinalize();
    return 0;
}
"""


def _run(tmp_path: Path, *args: str) -> Result:
    src = tmp_path / "dump.asc"
    src.write_text(PROGRAM)
    return opgen("run", str(src), "--", *args, cwd=tmp_path)


def test_asc_dump_prints_each_memory(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == ("DumpTensor: desc=7, addr=0, data_type=int32, position=UB, "
                        "dump_size=3")
    assert lines[1] == "[-3, 7, 17]"
    # the second tensor of L1: 16 halves (32 bytes) after the first
    assert lines[2] == ("DumpTensor: desc=8, addr=32, data_type=float16, position=L1, "
                        "dump_size=2")
    assert lines[3] == "[1.500000, -2.250000]"
    assert lines[4].startswith("DumpTensor: desc=9, addr=0, data_type=float32, position=L0C")
    assert lines[5] == "[0.000000, 0.500000]"
    assert lines[6].startswith("DumpTensor: desc=10, addr=0x")
    assert lines[6].endswith(", data_type=uint8, position=GM, dump_size=4")
    assert lines[7] == "[200, 1, 2, 3]"


def test_asc_dump_past_the_unified_buffer_is_an_error(tmp_path: Path) -> None:
    run = _run(tmp_path, "past")
    assert run.returncode == 1
    assert "asc_dump_ubuf: offset 262144 + 12 bytes runs past the Unified Buffer" in run.stderr
