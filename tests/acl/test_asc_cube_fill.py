"""Fill(LocalTensor, InitConstValueParams) (reference "Fill", matrix computation): repeatTimes
repeats of blockNum blocks set to initValue, dstGap blocks skipped between them; a block is 32
bytes in L1 and 512 bytes in L0A/L0B; the start must be aligned to a block."""

from __future__ import annotations

from pathlib import Path

from .conftest import Result, opgen

PROGRAM = r"""
#include "acl/acl.h"
#include "kernel_operator.h"

__global__ __cube__ void fill_probe(uint32_t l1Start)
{
    AscendC::LocalMemAllocator<AscendC::Hardware::L1> l1;
    AscendC::LocalTensor<half> a = l1.Alloc<AscendC::TPosition::A1, half>(96);
    AscendC::Fill(a, {1, 6, 0, half(0)});                 // 6 blocks of 16 halves: 0
    AscendC::InitConstValueParams<half> p(2, 1, 1, half(7));
    AscendC::Fill(a[l1Start], p);                          // blocks 0 and 2 (1 + gap 1): 7
    AscendC::LocalMemAllocator<AscendC::Hardware::L0B> l0b;
    AscendC::LocalTensor<float> b = l0b.Alloc<AscendC::TPosition::B2, float>(384);
    AscendC::Fill(b, AscendC::InitConstValueParams<float>(1, 3, 0, -1.0f));
    AscendC::Fill(b, AscendC::InitConstValueParams<float>(1, 1, 0, 2.5f));  // 512 bytes
    AscendC::Fill(b, AscendC::InitConstValueParams<float>(0, 1, 0, 9.0f));  // a NOP
    for (int i = 0; i < 96; i += 8) std::printf("%g ", static_cast<float>(a.GetValue(i)));
    std::printf("| %g %g\n", b.GetValue(127), b.GetValue(128));
}

int main(int argc, char** argv)
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    fill_probe<<<1, nullptr, nullptr>>>(argc > 1 ? 8 : 0);
    aclFinalize();
    return 0;
}
"""


def _run(tmp_path: Path, *args: str) -> Result:
    src = tmp_path / "fill.asc"
    src.write_text(PROGRAM)
    return opgen("run", str(src), "--", *args, cwd=tmp_path)


def test_fill_sets_blocks_and_skips_gaps(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert run.returncode == 0, run.stderr
    l1, l0b = run.stdout.strip().split(" | ")
    assert l1.split() == ["7", "7", "0", "0", "7", "7", "0", "0", "0", "0", "0", "0"]
    assert l0b.split() == ["2.5", "-1"]


def test_fill_of_l1_starts_on_a_32_byte_block(tmp_path: Path) -> None:
    run = _run(tmp_path, "misaligned")
    assert run.returncode == 1
    assert "Fill(LocalTensor, InitConstValueParams)" in run.stderr
    assert "dst starts at byte 16 of L1, which is not 32-byte aligned" in run.stderr
