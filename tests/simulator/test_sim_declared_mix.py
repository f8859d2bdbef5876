"""A kernel that declares itself mix with KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1 or _1_2)
and does its cube work under `if ASCEND_IS_AIC` (ops-math's add_lora) runs, launched as a
registered op's kernel is, on its vector cores and one cube core per block, which hand over with
CrossCoreSetFlag/CrossCoreWaitFlag in mode 2; a kernel that declares nothing runs vector cores only,
and its mode-2 flag is the error it was."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
struct RelayTiling { int32_t unused; };
REGISTER_TILING_DEFAULT(RelayTiling);
// Each AI Core's cube core writes 100 + its index into buf, then tells its vector cores; each
// vector core writes that value * 10 + its sub-block index, its block index and the block count.
extern "C" __global__ __aicore__ void relay(GM_ADDR bufAddr, GM_ADDR outAddr, GM_ADDR workspace,
                                            GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_RATIO);
    GlobalTensor<int32_t> buf, out;
    buf.SetGlobalBuffer((__gm__ int32_t*)bufAddr, 64);
    out.SetGlobalBuffer((__gm__ int32_t*)outAddr, 64);
    if ASCEND_IS_AIC {
        buf.SetValue(GetBlockIdx() * 8, 100 + GetBlockIdx());
        CrossCoreSetFlag<2, PIPE_FIX>(8);
    }
    if ASCEND_IS_AIV {
        CrossCoreWaitFlag(8);
        const int32_t core = GetBlockIdx() / GetTaskRation();
        out.SetValue(GetBlockIdx() * 3, buf.GetValue(core * 8) * 10 + GetSubBlockIdx());
        out.SetValue(GetBlockIdx() * 3 + 1, GetBlockIdx());
        out.SetValue(GetBlockIdx() * 3 + 2, GetBlockNum());
    }
}
"""


def build(tmp_path: Path, declared: str, matmul_header: bool = False) -> rt.KernelLibrary:
    src = tmp_path / f"relay_{declared}_{int(matmul_header)}.cpp"
    text = KERNEL.replace("KERNEL_TYPE_MIX_AIC_1_RATIO", declared)
    if matmul_header:  # included, no Matmul object registered (ops-math's add_lora)
        text = text.replace('#include "kernel_operator.h"\n',
                            '#include "kernel_operator.h"\n#include "lib/matmul_intf.h"\n')
    src.write_text(text)
    return rt.build_kernel(src, entry="relay")


@pytest.mark.parametrize("ratio,matmul_header", [(1, False), (2, False), (2, True)])
def test_a_declared_mix_kernel_runs_its_cube_cores(tmp_path: Path, ratio: int,
                                                   matmul_header: bool) -> None:
    lib = build(tmp_path, f"KERNEL_TYPE_MIX_AIC_1_{ratio}", matmul_header)
    buf, out = rt.gm_empty(64, "int32"), rt.gm_empty(64, "int32")
    out[:] = -1
    blocks = 3
    prof = rt.launch(lib, "relay", [buf, out], block_dim=blocks, tiling=struct.pack("<i", 0),
                     max_threads=2)
    got = np.asarray(out)[: 3 * blocks * ratio].reshape(-1, 3)
    want = [[(100 + i // ratio) * 10 + i % ratio, i, blocks] for i in range(blocks * ratio)]
    np.testing.assert_array_equal(got, want)
    assert (np.asarray(out)[3 * blocks * ratio:] == -1).all()
    assert prof.block_dim == blocks


def test_the_declaration_is_read_from_code_with_matmul_objects_left_to_the_matmul_api() -> None:
    from opgen_runtime.build import declared_mix

    src = b"void k() { KERNEL_TASK_TYPE_DEFAULT( KERNEL_TYPE_MIX_AIC_1_2 ); }\n"
    assert declared_mix(src) == ["-include", "opgen_sim/declared_mix_1_2.h"]
    src = b"void k() { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY); }\n"
    assert declared_mix(src) == []
    src = (b"void k() { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);\n"
           b"REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm); }\n")
    assert declared_mix(src) == []


def test_without_the_declaration_mode_2_is_the_error_it_was(tmp_path: Path) -> None:
    lib = build(tmp_path, "KERNEL_TYPE_AIV_ONLY")
    buf, out = rt.gm_empty(64, "int32"), rt.gm_empty(64, "int32")
    with pytest.raises(rt.SimulatorError, match="CrossCoreWaitFlag"):
        rt.launch(lib, "relay", [buf, out], block_dim=2, tiling=struct.pack("<i", 0))
