"""`opgen run --profile` and `opgen profile --exec`: every launch of a program built against the
simulator profiled, with the advice of `opgen profile` (an element loop on the scalar unit, a
launch on few of the SoC's vector cores); the L2 cache hint and the ND -> NZ copy into L1 of
CANN's best-practice samples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from opgen.program_profile import ProfileRecordError, parse_records
from opgen_runtime.profile import NUM_COUNTERS, ProfileSession

from .conftest import PROGRAMS, opgen

LOOPS = str(PROGRAMS / "profile_loops.asc")
TOTAL = 48 * 4096  # one tile a block at blockDim 48


def test_an_element_loop_on_one_block_is_told_to_vectorise_and_parallelise(tmp_path: Path) -> None:
    run = opgen("run", "--profile", "-D", "MODE=0", LOOPS, "--", str(1 << 20), "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "loop_add: 0 of 1048576 wrong" in run.stdout
    assert "opgen profile: profile_loops.asc exited with status 0; 1 kernel launch\n" in run.stderr
    assert "kernel loop_add (<<<>>>) on ascend910b (UB 196608 B), blockDim 1" in run.stderr
    # two GetValue and one SetValue an element, no vector instruction
    assert ("3145728 elements read or written one at a time by GetValue/SetValue/operator() "
            "(3145728 in UB (LocalTensor)) against 0 vector repeats" in run.stderr)
    assert ("blockDim 1 runs on 1 of the 48 vector cores of ascend910b while it moves 12.0 MiB "
            "through GM" in run.stderr)


def test_a_vector_add_over_every_core_gets_no_advice(tmp_path: Path) -> None:
    run = opgen("run", "--profile", LOOPS, "--", str(TOTAL), "48", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"loop_add: 0 of {TOTAL} wrong" in run.stdout
    assert "parallelise (blocks over the vector cores): ok" in run.stderr
    assert "vectorise (lanes per instruction): ok" in run.stderr
    assert "align (32-byte GM accesses): ok" in run.stderr


def test_profile_exec_runs_a_built_program_and_prints_json(tmp_path: Path) -> None:
    exe = tmp_path / "loops"
    built = opgen("cxx", "-DMODE=0", LOOPS, "-o", str(exe), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    run = opgen("profile", "--json", "--exec", str(exe), str(TOTAL), "48", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout[run.stdout.index("{"):])
    (launch,) = report["launches"]
    assert launch["block_dim"] == 48
    assert launch["scalar_ub"] == 3 * TOTAL and launch["scalar_gm"] == 0
    assert launch["gm_to_ub_bytes"] == 8 * TOTAL and launch["ub_to_gm_bytes"] == 4 * TOTAL
    assert launch["peak_ub_bytes"] == 3 * 4096 * 4  # the three static tensors of a tile
    assert [a["kind"] for a in report["advice"]] == ["vectorise"]


def test_profile_exec_passes_on_the_programs_exit_status(tmp_path: Path) -> None:
    script = tmp_path / "fails.sh"
    script.write_text("#!/bin/sh\necho ran\nexit 3\n")
    script.chmod(0o755)
    run = opgen("profile", "--exec", str(script), cwd=tmp_path)
    assert run.returncode == 3
    assert "ran\n" in run.stdout
    assert "exited with status 3; 0 kernel launches (a program profiles its launches when it " \
           "is built against the simulator" in run.stdout


def test_profile_exec_needs_a_program(tmp_path: Path) -> None:
    run = opgen("profile", "--exec", cwd=tmp_path)
    assert run.returncode != 0
    assert "opgen profile --exec: name the program to run" in run.stderr
    assert "Traceback" not in run.stderr
    missing = opgen("profile", "--exec", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode != 0
    assert "cannot run it: No such file or directory" in missing.stderr
    assert "Traceback" not in missing.stderr


def _record(kernel: str, blocks: int, body: str = "") -> str:
    counters = "\t".join(["1"] * (blocks * NUM_COUNTERS))
    return (f"launch\t{kernel}\t<<<>>>\tascend910b\t196608\t{blocks}\t1000\n"
            f"counters\t{counters}\nbuffer\t0\t4096\t64\taclrtMalloc#0\n{body}end\n")


def test_records_parse_in_launch_order() -> None:
    session = ProfileSession()
    parse_records(_record("a", 2, "scalar\t5\t7\nregion\t0\t32\t0\n") + _record("b", 1), session)
    assert [p.kernel for p in session.launches] == ["a (<<<>>>)", "b (<<<>>>)"]
    first = session.launches[0]
    assert first.block_dim == 2 and first.gm_to_ub_bytes == 2
    assert first.detail is not None
    assert (first.detail.scalar_ub, first.detail.scalar_gm) == (5, 7)
    assert [(r.name, r.read) for r in first.detail.regions] == [("aclrtMalloc#0", 32)]


@pytest.mark.parametrize("text,message", [
    ("garbage\n", "line 1: expected a launch record, got 'garbage'"),
    (_record("a", 2).replace("\t1\n", "\n", 1), "line 2: expected 16 counters of kernel 'a'"),
    (_record("a", 1).removesuffix("end\n"), "the record of kernel 'a' (line 1) has no end"),
])
def test_a_damaged_record_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ProfileRecordError, match=re.escape(message)):
        parse_records(text, ProfileSession())


def test_an_nd2nz_copy_into_l1_builds_and_runs(tmp_path: Path) -> None:
    # the cube data path (docs/simulator.md): a program holding an ND -> NZ copy into L1 runs
    src = tmp_path / "l1.asc"
    src.write_text('#include <cstdio>\n#include "acl/acl.h"\n#include "kernel_operator.h"\n'
                   "__global__ __vector__ void to_l1(GM_ADDR x) {\n"
                   "    AscendC::GlobalTensor<half> g;\n"
                   "    g.SetGlobalBuffer((__gm__ half*)x, 256);\n"
                   "    AscendC::LocalTensor<half> l(AscendC::TPosition::A1, 0, 256);\n"
                   "    AscendC::Nd2NzParams p(1, 16, 16, 0, 16, 16, 1, 0);\n"
                   "    AscendC::DataCopy(l, g, p);\n"
                   "}\n"
                   "int main() {\n"
                   "    aclInit(nullptr);\n"
                   "    aclrtSetDevice(0);\n"
                   "    aclrtStream s = nullptr;\n"
                   "    aclrtCreateStream(&s);\n"
                   "    void* d = nullptr;\n"
                   "    aclrtMalloc(&d, 512, ACL_MEM_MALLOC_HUGE_FIRST);\n"
                   "    to_l1<<<1, nullptr, s>>>((uint8_t*)d);\n"
                   "    aclrtSynchronizeStream(s);\n"
                   "    std::printf(\"copied\\n\");\n"
                   "    return 0;\n"
                   "}\n")
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("copied")
