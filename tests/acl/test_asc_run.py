"""`opgen run FILE.asc`: a single-source program's <<<>>> launch (GM pointers and scalar
arguments) runs on the simulator; GM bounds are aclrtMalloc's rounded allocations; compiler
messages name the user's file and line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen.asc_rewrite import PRELUDE, find_launches, rewrite
from opgen.diagnostics import DiagnosticError

from .conftest import PROGRAMS, opgen

RNG = np.random.default_rng(11)
SCALE_ADD = str(PROGRAMS / "scale_add.asc")


def _inputs(workdir: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    (workdir / "input").mkdir()
    (workdir / "output").mkdir()
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    x.tofile(workdir / "input" / "x.bin")
    y.tofile(workdir / "input" / "y.bin")
    return x, y


@pytest.mark.parametrize("n,blocks", [(4096, 4), (3 * 1000, 3)])
def test_launch_with_scalar_arguments(tmp_path: Path, n: int, blocks: int) -> None:
    x, y = _inputs(tmp_path, n)
    run = opgen("run", SCALE_ADD, "--", str(n), str(blocks), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    z = np.fromfile(tmp_path / "output" / "z.bin", np.float32)
    # one float multiply then one float add per element, as numpy does in float32
    np.testing.assert_array_equal(z, x * np.float32(2.5) + y)


def test_reading_into_the_rounding_of_aclrtmalloc_is_fine(tmp_path: Path) -> None:
    # 16384 bytes requested: 16384 + 32 usable, so the last block may read 8 floats past the end
    _inputs(tmp_path, 4096)
    run = opgen("run", SCALE_ADD, "--", "4096", "4", "8", cwd=tmp_path)
    assert run.returncode == 0, run.stderr


def test_reading_past_the_rounded_allocation_is_a_gm_bounds_error(tmp_path: Path) -> None:
    _inputs(tmp_path, 4096)
    run = opgen("run", SCALE_ADD, "--", "4096", "4", "16", cwd=tmp_path)
    assert run.returncode == 1
    assert ("kernel 'scale_add', block 3: DataCopy(GM->UB): bytes [15360, 16448) run past the "
            "end of GM buffer 'aclrtMalloc#0' (16416 bytes) [GlobalMemoryOutOfBounds]"
            in run.stderr)


def test_a_host_pointer_passed_to_a_kernel_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "host_ptr.asc"
    src.write_text('#include "acl/acl.h"\n#include "kernel_operator.h"\n'
                   "__global__ __vector__ void touch(GM_ADDR p) {}\n"
                   "int main() { uint8_t buf[64]; touch<<<1, nullptr, nullptr>>>(buf); }\n")
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 1
    assert "kernel 'touch': argument 1 (0x" in run.stderr
    assert "is not device memory: pass a pointer from aclrtMalloc" in run.stderr


def test_a_kernel_struct_may_share_the_name_of_a_host_tiling_class(tmp_path: Path) -> None:
    """A host tiling class in namespace optiling and a kernel struct of the same name at global
    scope (asc-devkit's broadcast sample): the global name is the kernel's, as CANN compiles it;
    GET_TILING_DATA still finds the class REGISTER_TILING_DATA_CLASS registered in optiling."""
    run = opgen("run", str(PROGRAMS / "tiling_names.asc"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "tiling names: pass" in run.stdout


# (half, float) temporaries of each op in asc-devkit's impl/adv_api/tiling (math, activation)
MATH_TMP_FACTORS = {"Tanh": (4, 1), "Erf": (8, 3), "Floor": (2, 0), "Ceil": (2, 1),
                    "Trunc": (2, 1), "Axpy": (4, 1), "Sigmoid": (1, 1), "Frac": (4, 0),
                    "Fmod": (8, 1), "Xor": (1, 1), "GeGLU": (4, 0)}


def test_math_library_tmp_sizes_follow_cann_host_rules(tmp_path: Path) -> None:
    """tiling/tiling_api.h's Get<Op>MaxMinTmpSize / Get<Op>TmpBufferFactorSize (GetGeluMin/Max):
    min = factor repeats of 256 bytes, max = factor times the input's bytes (at least a repeat);
    Axpy of float needs none, Gelu three float temporaries whatever the type, Power its per-form
    and per-type temporaries of the A2 (plus a repeat for float and half); a bad typeSize or
    an empty shape is reported and leaves the sizes alone."""
    run = opgen("run", str(PROGRAMS / "math_tmp_sizes.asc"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    got = {tuple(line.split()[:3]): tuple(int(v) for v in line.split()[3:])
           for line in run.stdout.splitlines() if not line.startswith("Power")}
    got.update({tuple(line.split()[:2]): tuple(int(v) for v in line.split()[2:])
                for line in run.stdout.splitlines() if line.startswith("Power")})
    for op, (half, flt) in MATH_TMP_FACTORS.items():
        for n in (1, 64, 1000):
            for ts in (2, 4):
                f = flt if ts == 4 else half
                want = (f * max(n * ts, 256), f * 256)
                if op == "Axpy" and ts == 4:
                    want = (0, 0)
                assert got[(op, str(n), str(ts))] == want, (op, n, ts)
        if op != "Sigmoid":
            assert got[(op + "Factor", "2", str(half))] == (0,)
            assert got[(op + "Factor", "4", str(flt))] == (0,)
    for n in (1, 64, 1000):
        for ts in (2, 4):
            assert got[("Gelu", str(n), str(ts))] == (max(768, 3 * n * 4), 768)
            f = 1 if ts == 4 else 2  # Acosh: max(f * n, 256) elements of the input's type
            assert got[("Acosh", str(n), str(ts))] == (max(f * n, 256) * ts, f * 256)
    assert got[("AcoshFactor", "2", "2")] == (0,) and got[("AcoshFactor", "4", "1")] == (0,)
    for n in (1, 64, 1000):  # Log and Log10 need none; Log2 a float per element for half;
        for ts in (2, 4):     # Clamp a byte per element, 128 (half) or 64 (float) at least
            assert got[("Log", str(n), str(ts))] == (0, 0)
            assert got[("Log10", str(n), str(ts))] == (0, 0)
            assert got[("Log2", str(n), str(ts))] == ((max(4 * n, 256), 256) if ts == 2 else (0, 0))
            least = 128 if ts == 2 else 64
            assert got[("Clamp", str(n), str(ts))] == (max(n, least), least)
    assert got[("SwishSilu", "2", "0")] == (0, 0, 0) and got[("SwishSilu", "4", "0")] == (0, 0, 0)
    for n in (40, 200, 1000):  # Sum: a sum a 256-byte repeat, rounded up to 32 bytes
        for ts in (2, 4):
            reps = -(-n // (256 // ts))
            size = -(-reps // (32 // ts)) * (32 // ts) * ts
            assert got[("Sum", str(n), str(ts))] == (size, size)
    assert got[("SwiGLU", "1000", "2")] == (6 * 2000, 6 * 256)
    assert got[("SwiGLU", "1000", "4")] == (0, 0)
    assert got[("SwiGLUFactor", "2", "6")] == (0,) and got[("SwiGLUFactor", "4", "0")] == (0,)
    # CumSum of 20 x 64: down the first axis half needs the input in float; along the last two
    # transposes of 16 rows (min) or 32 (the rows rounded up to 16; max), half also float room
    assert got[("CumSum", "2", "0")] == (20 * 64 * 4, 20 * 64 * 4)
    assert got[("CumSum", "4", "0")] == (0, 0)
    assert got[("CumSum", "2", "1")] == (64 * 32 * 2 + 32 * 64 * 2 * 2,
                                          64 * 16 * 2 + 16 * 64 * 2 * 2)
    assert got[("CumSum", "4", "1")] == (32 * 64 * 4 * 2, 16 * 64 * 4 * 2)
    assert "GeluMismatch" not in run.stdout
    # Power on the A2 (DAV_2201): (half, int, float) temporaries tensor^tensor / with a scalar
    pow_k = {True: (14, 6, 4), False: (14, 7, 5)}
    for n in (16, 1000):
        for form in range(3):
            for kind, ts in ((0, 4), (1, 2), (2, 4)):
                k = pow_k[form == 0][(2, 0, 1)[kind]]
                each = max(n * ts, 256 if ts == 4 else 128)
                want = {0: (each * k + 256, 256 * k + 256), 1: (each * k + 256, 256 * k // 2 + 256),
                        2: (each * k, 256 * k)}[kind]
                assert got[(f"Power{form}{kind}", str(n))] == want, (form, kind, n)
    assert run.stdout.count("Bad 7 7") == 2
    assert "GetCeilMaxMinTmpSize: typeSize is 8" in run.stderr
    assert "GetTanhMaxMinTmpSize: the input shape holds no element" in run.stderr


def test_compile_errors_name_the_users_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "broken.asc"
    src.write_text('#include "kernel_operator.h"\n'
                   "__global__ __vector__ void k(GM_ADDR p) {}\n"
                   "int main() {\n"
                   "    k<<<1, nullptr, nullptr>>>(nullptr);\n"
                   "    undeclared_name = 1;\n"
                   "}\n")
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 2
    located = [line for line in run.stderr.splitlines() if line.startswith(f"{src}:5:5: error: ")]
    assert located and "undeclared_name" in located[0], run.stderr
    assert run.stderr.rstrip().endswith(f"opgen: error: {src} did not compile")
    assert "Traceback" not in run.stderr


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    run = opgen("run", str(tmp_path / "nope.asc"), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == f"opgen: error: {tmp_path / 'nope.asc'}: no such file\n"


def test_cxx_builds_a_program_as_a_users_build_would(tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    build = opgen("cxx", "-O1", SCALE_ADD, "-o", str(exe), cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    x, y = _inputs(tmp_path, 1024)
    import subprocess

    proc = subprocess.run([str(exe), "1024", "2"], cwd=tmp_path, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.fromfile(tmp_path / "output" / "z.bin", np.float32),
                                  x * np.float32(2.5) + y)


ARCH_PROGRAM = r"""
#include <cstdio>
#include "kernel_operator.h"
int main() {
#if defined(__NPU_ARCH__)
    std::printf("arch %d\n", __NPU_ARCH__);
#else
    std::printf("arch none\n");
#endif
    return 0;
}
"""


def test_npu_arch_is_the_simulated_socs_unless_given(tmp_path: Path) -> None:
    # as CANN's CPU mode compiles an .asc for dav-2201; samples select their code by it
    prog = tmp_path / "arch.asc"
    prog.write_text(ARCH_PROGRAM)
    run = opgen("run", str(prog), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "arch 2201"
    run = opgen("run", "-D__NPU_ARCH__=3510", str(prog), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "arch 3510"


# ---- the rewrite itself ---------------------------------------------------------------------


def test_rewrite_keeps_lines_and_skips_comments_and_strings() -> None:
    text = ('// k<<<1, 0, s>>>(a) in a comment\n'
            'const char* t = "k<<<1>>>()";\n'
            "void f() {\n"
            "    ns::k<N, 2><<<blocks,\n"
            "        0, stream>>>(a,\n"
            "                     b);\n"
            "}\n")
    out = rewrite(text, "/src/prog.asc")
    head, body = out.split("\n", 2)[:2], out.split("\n", 2)[2]
    assert head == [PRELUDE.rstrip("\n"), '#line 1 "/src/prog.asc"']
    assert body.count("\n") == text.count("\n")
    assert body.splitlines()[:3] == text.splitlines()[:3]
    assert body.splitlines()[3] == (
        '    ::opgen_sim::AscLaunch<-1>("ns::k<N, 2>", [&](const auto&... opgen_arg) '
        "{ ns::k<N, 2>(opgen_arg...); }, blocks,")
    assert body.splitlines()[4] == "        0, stream)(a,"


def test_launch_split_after_the_template_arguments() -> None:
    # as CANN's samples write a templated kernel's launch: `<<<` on the next line
    text = ("void f() {\n"
            "    compute<totalLength>\n"
            "        <<<numBlocks, 0, stream>>>(x, y);\n"
            "    next();\n"
            "}\n")
    body = rewrite(text, "/src/prog.asc").split("\n", 2)[2]
    assert body.count("\n") == text.count("\n")
    lines = body.splitlines()
    assert lines[1] == ('    ::opgen_sim::AscLaunch<-1>("compute<totalLength>", [&](const auto&... '
                        "opgen_arg) { compute<totalLength>(opgen_arg...); }, numBlocks, 0, stream)")
    assert lines[2] == "(x, y);"
    assert lines[3] == "    next();"


def test_launch_without_arguments_is_a_located_error() -> None:
    with pytest.raises(DiagnosticError) as err:
        find_launches("int main() {\n  k<<<1, 0, s>>>;\n}\n", "p.asc")
    assert str(err.value) == ("p.asc:2:17: error: kernel launch: expected '(' and the kernel's "
                              "arguments after '>>>'")


MIX_IDS = r"""
#include "acl/acl.h"
#include "kernel_operator.h"
#include <cstdio>
template <int kWhich>
__aicore__ inline void Ids(GM_ADDR out)
{
    if ASCEND_IS_AIC return;  // a __mix__ kernel's cube cores run too: only its AIV cores write
    AscendC::GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t*)out, 64);
    const int64_t i = AscendC::GetBlockIdx();
    o.SetValue(i * 4 + 0, kWhich);
    o.SetValue(i * 4 + 1, AscendC::GetBlockNum());
    o.SetValue(i * 4 + 2, AscendC::GetSubBlockIdx());
    o.SetValue(i * 4 + 3, AscendC::GetTaskRation());
}
__global__ __mix__(1, 2) void mix_ids(GM_ADDR out) { Ids<1>(out); }
__global__ __vector__ void vec_ids(GM_ADDR out) { Ids<2>(out); }
__global__ __aicore__ void plain_ids(GM_ADDR out) { Ids<3>(out); }
int main()
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    void* out = nullptr;
    aclrtMalloc(&out, 256, ACL_MEM_MALLOC_HUGE_FIRST);
    int32_t host[64];
    const int blocks = 2;
    for (int k = 0; k < 3; ++k) {
        aclrtMemset(out, 256, 0xff, 256);
        if (k == 0) mix_ids<<<blocks, nullptr, nullptr>>>((GM_ADDR)out);
        if (k == 1) vec_ids<<<blocks, nullptr, nullptr>>>((GM_ADDR)out);
        if (k == 2) plain_ids<<<blocks, nullptr, nullptr>>>((GM_ADDR)out);
        aclrtMemcpy(host, 256, out, 256, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int i = 0; i < 16; ++i) std::printf("%d ", host[i]);
        std::printf("\n");
    }
    return 0;
}
"""


def test_the_launch_carries_the_kernels_declared_type() -> None:
    # each typed declaration gets a marker of its kind in front of it, so that under #if only
    # the active branch's counts; a launch reads the marker, qualified as the kernel is named
    text = ("__global__ __mix__(1, 2) void m(GM_ADDR x) {}\n"
            "template <typename T> __global__ __vector__ void v(GM_ADDR x) {}\n"
            "#if SCENARIO == 2\n"
            "__global__ __cube__ void c(GM_ADDR x);\n"
            "#else\n"
            'extern "C" __global__ __mix__(1, 1) void c(GM_ADDR x);\n'
            "#endif\n"
            "// __mix__(1, 1) void p(\n"
            "__global__ __aicore__ void p(GM_ADDR x) {}\n"
            "void f() { m<<<1>>>(x); v<float><<<1>>>(x); p<<<1>>>(x); ns::c<<<2>>>(x); }\n")
    lines = rewrite(text, "t.asc").splitlines()[2:]
    assert len(lines) == text.count("\n")
    assert lines[0].startswith("::opgen_sim::KernelKind<2, true, false> opgen_kernel_kind_m(); "
                               "__global__ __mix__(1, 2) void m(")
    assert lines[1].startswith("::opgen_sim::KernelKind<1, false, false> opgen_kernel_kind_v(); "
                               "template <typename T>")
    assert lines[3].startswith("::opgen_sim::KernelKind<1, false, true> opgen_kernel_kind_c(); ")
    assert lines[5].startswith("::opgen_sim::KernelKind<1, true, false> opgen_kernel_kind_c(); "
                               'extern "C"')
    assert lines[7] == "// __mix__(1, 1) void p("
    launches = lines[-1]
    kind = "decltype(opgen_kernel_kind_m())"
    assert f'AscLaunch<{kind}::kRatio, {kind}::kMix, {kind}::kCube>("m"' in launches
    assert '::opgen_sim::AscLaunch<-1>("p"' in launches  # its file's ratio
    assert "decltype(ns::opgen_kernel_kind_c())::kRatio" in launches
    # typed in one branch, untyped in the other: the untyped branch's marker is the file's ratio
    text = ("#if S == 2\n__global__ __cube__ void k(GM_ADDR a)\n"
            "#else\n__global__ __aicore__ void k(GM_ADDR a)\n#endif\n{}\n")
    lines = rewrite(text, "t.asc").splitlines()[2:]
    assert lines[1].startswith("::opgen_sim::KernelKind<1, false, true> opgen_kernel_kind_k(); ")
    assert lines[3].startswith("::opgen_sim::KernelKind<-1, false, false> opgen_kernel_kind_k(); ")
    # the type word before `__global__` (asc-devkit's C API samples): one marker, of that type
    text = "__vector__ __global__ __aicore__ void add(GM_ADDR a) {}\nvoid f() { add<<<8>>>(a); }\n"
    lines = rewrite(text, "t.asc").splitlines()[2:]
    assert lines[0].count("opgen_kernel_kind_add()") == 1
    assert lines[0].startswith("::opgen_sim::KernelKind<1, false, false> opgen_kernel_kind_add(); "
                               "__vector__ __global__")
    # a type word in the comment just before a declaration (asc-devkit's
    # cross_core_set_wait_flag: "... not __vector__/__cube__ ...") does not hide it
    text = ("// a kernel that syncs must not be __vector__/__cube__ here\n"
            "__global__ __mix__(1, 2) __aicore__ void s(GM_ADDR a) {}\n")
    lines = rewrite(text, "t.asc").splitlines()[2:]
    assert lines[0].startswith("::opgen_sim::KernelKind<2, true, false> opgen_kernel_kind_s(); //")


def test_a_mix_kernel_runs_two_vector_cores_a_block(tmp_path: Path) -> None:
    # GetBlockIdx counts the AIV cores ([0, 2 * numBlocks) for __mix__(1, 2)), GetBlockNum is
    # the launch's numBlocks, GetSubBlockIdx the core's index in its block (reference
    # "GetBlockIdx", "GetBlockNum"); __vector__ and untyped kernels run one core a block
    src = tmp_path / "mix_ids.asc"
    src.write_text(MIX_IDS)
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = [[int(v) for v in line.split()] for line in run.stdout.splitlines()[-3:]]
    assert rows[0] == [1, 2, 0, 2, 1, 2, 1, 2, 1, 2, 0, 2, 1, 2, 1, 2]
    for row, which in zip(rows[1:], (2, 3), strict=True):
        assert row[:8] == [which, 2, 0, 1, which, 2, 0, 1]
        assert row[8:] == [-1] * 8


MIX_BY_IF = r"""
#include "acl/acl.h"
#include "kernel_operator.h"
#include <cstdio>
// the kernel's type chosen by #if between its template header and its declarator, as asc-devkit's
// quant_group_matmul_high_performance does
template <int kWhich>
#if RATIO == 1
__global__ __mix__(1, 1)
#else
__global__ __mix__(1, 2)
#endif
    void typed_by_if(GM_ADDR out)
{
    if ASCEND_IS_AIC return;
    AscendC::GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t*)out, 16);
    o.SetValue(AscendC::GetBlockIdx(), kWhich + AscendC::GetTaskRation());
}
int main()
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    void* out = nullptr;
    aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(out, 64, 0, 64);
    typed_by_if<10><<<2, nullptr, nullptr>>>((GM_ADDR)out);
    int32_t host[16];
    aclrtMemcpy(host, 64, out, 64, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 6; ++i) std::printf("%d ", host[i]);
    std::printf("\n");
    return 0;
}
"""


@pytest.mark.parametrize("ratio", [1, 2])
def test_a_kernel_typed_under_if_after_its_template_header(tmp_path: Path, ratio: int) -> None:
    # no declaration fits between a template header and its declarator: the header moves into
    # each branch, after the branch's kind marker; lines stay where they were
    text = f"#define RATIO {ratio}\n" + MIX_BY_IF
    src = tmp_path / "by_if.asc"
    src.write_text(text)
    lines = rewrite(text, "t.asc").splitlines()[2:]
    assert len(lines) == text.count("\n")
    at = text.splitlines().index("__global__ __mix__(1, 1)")
    assert lines[at - 2].strip() == ""  # the header's own line, blanked
    assert lines[at] == ("::opgen_sim::KernelKind<1, true, false> opgen_kernel_kind_typed_by_if(); "
                         "template <int kWhich> __global__ __mix__(1, 1)")
    assert lines[at + 2].startswith("::opgen_sim::KernelKind<2, true, false> "
                                    "opgen_kernel_kind_typed_by_if(); template <int kWhich> ")
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    got = [int(v) for v in run.stdout.split()[-6:]]
    want = [11, 11, 0, 0, 0, 0] if ratio == 1 else [12, 12, 12, 12, 0, 0]
    assert got == want


MIX_FLAGS = r"""
#include "acl/acl.h"
#include "kernel_operator.h"
#include <cstdio>
// One value passed AIC -> its AIVs (mode 2), the AIVs' replies back to the AIC (mode 2), and the
// two AIVs of an AI Core swapping values (mode 1). buf: 16 int32 scratch per AI Core.
__global__ __mix__(1, 2) void relay(GM_ADDR bufAddr, GM_ADDR outAddr)
{
    AscendC::GlobalTensor<int32_t> buf, out;
    buf.SetGlobalBuffer((__gm__ int32_t*)bufAddr, 64);
    out.SetGlobalBuffer((__gm__ int32_t*)outAddr, 64);
    const int32_t core = ASCEND_IS_AIC ? AscendC::GetBlockIdx() : AscendC::GetBlockIdx() / 2;
    if ASCEND_IS_AIC {
        buf.SetValue(core * 16, 100 + core);
        AscendC::CrossCoreSetFlag<2, PIPE_FIX>(3);
        AscendC::CrossCoreWaitFlag(5);
        out.SetValue(32 + core, buf.GetValue(core * 16 + 1) + buf.GetValue(core * 16 + 2));
    }
    if ASCEND_IS_AIV {
        const int32_t sub = AscendC::GetSubBlockIdx();
        AscendC::CrossCoreWaitFlag(3);
        const int32_t v = buf.GetValue(core * 16) * 10 + sub;
        buf.SetValue(core * 16 + 1 + sub, v);
        AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(7);
        AscendC::CrossCoreWaitFlag(7);
        out.SetValue(AscendC::GetBlockIdx(), buf.GetValue(core * 16 + 2 - sub));  // the other's
        AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(5);
    }
}
__global__ __vector__ void vec_mode2(GM_ADDR out) { AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(1); }
int main(int argc, char** argv)
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    void *buf = nullptr, *out = nullptr;
    aclrtMalloc(&buf, 256, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&out, 256, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(out, 256, 0, 256);
    if (argc > 1) {
        vec_mode2<<<1, nullptr, nullptr>>>((GM_ADDR)out);
        return 0;
    }
    relay<<<2, nullptr, nullptr>>>((GM_ADDR)buf, (GM_ADDR)out);
    int32_t host[64];
    aclrtMemcpy(host, 256, out, 256, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 4; ++i) std::printf("%d ", host[i]);
    std::printf("%d %d\n", host[32], host[33]);
    return 0;
}
"""


def test_a_mix_kernels_cube_and_vector_cores_sync_in_modes_1_and_2(tmp_path: Path) -> None:
    # the cube core of each AI Core runs too (ASCEND_IS_AIC, GetBlockIdx its AI Core): mode 2
    # from the AIC releases both its AIVs, mode 2 from both AIVs releases the AIC, mode 1 is the
    # two AIVs' barrier (reference "CrossCoreSetFlag")
    src = tmp_path / "mix_flags.asc"
    src.write_text(MIX_FLAGS)
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # AIV 2c + s reads its partner's 10 * (100 + c) + (1 - s); AIC c sums its two AIVs' values
    assert run.stdout.split() == ["1001", "1000", "1011", "1010", "2001", "2021"]
    run = opgen("run", str(src), "--", "vector", cwd=tmp_path)
    assert run.returncode == 1
    assert ("kernel 'vec_mode2', block 0: CrossCoreSetFlag: modeId 2 synchronises the cores "
            "inside one AI Core (cube and vector): it needs a __mix__(1, 1) or __mix__(1, 2) "
            "kernel" in run.stderr)


CUBE_IDS = r"""
#include "acl/acl.h"
#include "kernel_operator.h"
#include <cstdio>
#define USE_CUBE 1
#if USE_CUBE
__global__ __cube__ void which(GM_ADDR out)
#else
__global__ __mix__(1, 2) void which(GM_ADDR out)
#endif
{
    AscendC::GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t*)out, 64);
    const int64_t i = AscendC::GetBlockIdx();
    o.SetValue(i * 3 + 0, ASCEND_IS_AIC ? 1 : 0);
    o.SetValue(i * 3 + 1, AscendC::GetBlockNum());
    o.SetValue(i * 3 + 2, AscendC::GetSubBlockIdx());
}
int main()
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    void* out = nullptr;
    aclrtMalloc(&out, 256, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(out, 256, 0xff, 256);
    which<<<3, nullptr, nullptr>>>((GM_ADDR)out);
    int32_t host[12];
    aclrtMemcpy(host, sizeof(host), out, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST);
    for (int v : host) std::printf("%d ", v);
    std::printf("\n");
    return 0;
}
"""


def test_a_cube_kernels_cores_are_cube_cores(tmp_path: Path) -> None:
    # the active #if branch declares the kernel __cube__: its 3 blocks run as cube cores
    # (ASCEND_IS_AIC, GetBlockIdx in [0, 3)), not as a __mix__ kernel's 6 + 3 cores
    src = tmp_path / "cube_ids.asc"
    src.write_text(CUBE_IDS)
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "3", "0"] * 3 + ["-1"] * 3


def test_the_simulators_flags_give_way_to_the_commands_own_macros() -> None:
    from opgen.asc_run import own_flags

    ours = own_flags(["-O2", "-Iinclude", "-c"])
    assert "-D__NPU_ARCH__=2201" in ours and "-D__CCE_AICORE__=220" in ours
    assert any(f.startswith("-I") and f.endswith("include") and f != "-Iinclude" for f in ours)
    # CANN's CPU mode passes the target's own (-D NAME=... or -DNAME=...): it is not repeated
    assert "-D__NPU_ARCH__=2201" not in own_flags(["-D__NPU_ARCH__=3510"])
    theirs = own_flags(["-D", "__CCE_AICORE__=200", "-Ix"])
    assert "-D__CCE_AICORE__=220" not in theirs and "-D__NPU_ARCH__=2201" in theirs
    assert len(theirs) == len(ours) - 1


def test_a_tiling_struct_copied_through_a_word_pointer_reads_as_copied(tmp_path: Path) -> None:
    """A kernel copying its tiling struct word by word through a uint32_t pointer and reading its
    float fields (asc-devkit's softmaxflashv3 CopyTiling): undefined in C++, which GCC's -O2
    would read as the struct's initial zeros; the simulator builds with -fno-strict-aliasing, so
    the kernel sees what it copied, as CANN's unoptimised CPU mode does."""
    run = opgen("run", str(PROGRAMS / "tiling_pun.asc"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "alpha 0.9375, beta * n 6" in run.stdout
