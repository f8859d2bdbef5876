"""The generated PyTorch ops' NPU (PrivateUse1) kernels, without an NPU (docs/npu.md).

- They type-check against the headers of the torch-npu wheel matching the installed torch
  (`make npu-headers` downloads them; skipped, with that reason, until it has run), with the
  flags the package's library build uses when torch_npu imports (opgen_runtime.torch_npu_build).
- Compiled against a stand-in for op-plugin's EXEC_NPU_CMD_EXT (tests/torch/npu_fake) and a fake
  aclnn library defined with the generated aclnn headers' signatures, and called through the
  dispatcher's PrivateUse1 key, they call aclnn<Op>GetWorkspaceSize with the header's arguments
  in order (inputs, attrs, outputs; an absent optional input as nullptr), allocate its workspace,
  then aclnn<Op>(workspace, size, executor, stream) with that executor.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from opgen import npu_headers
from opgen.diagnostics import DiagnosticSink
from opgen.emit import torch_naming
from opgen.emit.cann_aclnn import view as aclnn_view
from opgen.model import OpSpec
from opgen.project import load_config, load_spec_file

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
CC = GENERATED / "python" / "opgen_ops" / "torch" / "cc"
LIBRARY = CC / "opgen_ops_torch.cc"
RUNTIME_INCLUDE = ROOT / "runtime" / "include"
FAKE_INCLUDE = Path(__file__).resolve().parent / "npu_fake"

torch = pytest.importorskip("torch")


def _torch_dir() -> Path:
    return Path(torch.__file__).resolve().parent


def _abi() -> str:
    return f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"


def _cxx() -> str:
    from opgen_runtime.build import _compiler

    return _compiler()


# -- (1) against the torch-npu wheel's headers ----------------------------------------------------

def test_npu_kernels_compile_against_the_torch_npu_wheel() -> None:
    h = npu_headers.load()
    if h is None:
        pytest.skip("the torch-npu wheel's headers are not downloaded: run `make npu-headers` "
                    f"(into {npu_headers.npu_dir()})")
    cmd = [_cxx(), "-fsyntax-only", "-std=c++20", _abi(), "-Wno-deprecated-declarations",
           *h.compile_flags(_torch_dir() / "include"),
           f"-I{RUNTIME_INCLUDE}", f"-I{CC}", str(LIBRARY)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"torch-npu {h.torch_npu_version}:\n{r.stderr[-6000:]}"
    text = LIBRARY.read_text()
    assert '#include "op_plugin/include/npu_cpp_extension.h"' in text
    for op in ("element_add", "leaky_relu", "layer_norm"):
        assert f'#include "{op}_npu.h"' in text


# -- (2) the call sequence, against a fake aclnn library ------------------------------------------

# (op, the boxed arguments of <namespace>_cpu::<op> as C++ IValues, the fake's workspace size)
CASES = [
    ("element_add", ["torch::randn({64})", "torch::randn({64})"], 4096),
    ("leaky_relu", ["torch::randn({4, 8})", "0.25"], 0),
    ("layer_norm", ["torch::randn({4, 8})", "torch::randn({8})", "c10::IValue()", "0.001"], 512),
]

_FORMAT = {
    "const aclTensor *": "Tensor",
    "double": "Double",
    "int64_t": "Int",
    "bool": "Bool",
    "const aclIntArray *": "Ints",
    "char *": "Str",
}


def _spec(op_name: str) -> OpSpec:
    cfg = load_config(ROOT)
    path = next(cfg.spec_dir.glob(f"{op_name}.[jy]*"))  # element_add.json, leaky_relu.yaml
    (spec,) = load_spec_file(path, cfg, DiagnosticSink())
    return spec


def _fake_aclnn(op_name: str, workspace: int) -> str:
    v = aclnn_view(_spec(op_name))
    params = ", ".join(p.decl for p in v.params)
    args = ' + ", " + '.join(f'Fmt("{p.name}", {p.name})' for p in v.params)
    return f"""
extern "C" aclnnStatus {v.workspace_fn}({params}, uint64_t* workspaceSize,
                                        aclOpExecutor** executor) {{
    *workspaceSize = {workspace};
    *executor = new aclOpExecutor;
    Record("{{\\"ev\\": \\"workspace\\", \\"fn\\": \\"{v.workspace_fn}\\", \\"args\\": [" + {args} +
           "], \\"executor\\": " + Ptr(*executor) + "}}");
    return ACLNN_SUCCESS;
}}

extern "C" aclnnStatus {v.run_fn}(void* workspace, uint64_t workspaceSize,
                                 aclOpExecutor* executor, aclrtStream stream) {{
    Record("{{\\"ev\\": \\"run\\", \\"fn\\": \\"{v.run_fn}\\", \\"workspace\\": " + Ptr(workspace) +
           ", \\"size\\": " + std::to_string(workspaceSize) + ", \\"executor\\": " +
           Ptr(executor) + ", \\"stream\\": " + Ptr(stream) + "}}");
    delete executor;
    return ACLNN_SUCCESS;
}}
"""


def _driver() -> str:
    headers = sorted((GENERATED / "cann" / "aclnn").glob("aclnn_*.h"))
    blobs = sorted(set(re.findall(r'extern "C" const uint8_t (\w+)\[\];',
                                  "".join(p.read_text() for p in CC.glob("*.h")))))
    # every op with an NPU kernel needs its aclnn functions; CASES are called
    ops = sorted(p.name[:-len("_npu.h")] for p in CC.glob("*_npu.h") if "Npu(" in p.read_text())
    workspace = {op: ws for op, _, ws in CASES}
    cpu_ns = torch_naming.cpu_namespace(load_config(ROOT).namespace)  # the bare kernels' ops
    calls = []
    for op, args, _ in CASES:
        calls.append(f'    Call("{cpu_ns}::{op}", {{{", ".join(args)}}});')
    return "\n".join([
        "#include <torch/torch.h>",
        *(f'#include "{p.name}"' for p in headers),
        '#include "opgen_ops_torch.cc"',
        "",
        "// the CPU kernels' variants: never launched here",
        *(f'extern "C" const uint8_t {b}[1] = {{0}};' for b in blobs),
        "",
        "using opgen_fake_npu::Ptr;",
        "using opgen_fake_npu::Record;",
        'static std::string Fmt(const char* n, const aclTensor* t) {',
        '    std::string s = std::string("{\\"name\\": \\"") + n + "\\", ";',
        '    if (t == nullptr) return s + "\\"tensor\\": null}";',
        '    s += "\\"tensor\\": " + Ptr(t->data) + ", \\"dtype\\": " + '
        'std::to_string(static_cast<int>(t->dtype)) + ", \\"shape\\": [";',
        '    for (uint64_t i = 0; i < t->view_rank; ++i) '
        's += (i ? ", " : "") + std::to_string(t->view_dims[i]);',
        '    return s + "]}";',
        "}",
        'static std::string Fmt(const char* n, double v) {',
        '    char b[64]; std::snprintf(b, sizeof b, "%.17g", v);',
        '    return std::string("{\\"name\\": \\"") + n + "\\", \\"double\\": " + b + "}";',
        "}",
        'static std::string Fmt(const char* n, int64_t v) {',
        '    return std::string("{\\"name\\": \\"") + n + "\\", \\"int\\": " + '
        'std::to_string(v) + "}";',
        "}",
        'static std::string Fmt(const char* n, bool v) {',
        '    return std::string("{\\"name\\": \\"") + n + "\\", \\"bool\\": " + '
        '(v ? "true" : "false") + "}";',
        "}",
        *(_fake_aclnn(op, workspace.get(op, 0)) for op in ops),
        "// NPU tensors are CPU tensors here: every op without a PrivateUse1 kernel (at::empty,",
        "// ...) runs its CPU kernel.",
        "static void CpuFallback(const c10::OperatorHandle& op, c10::DispatchKeySet,",
        "                        torch::jit::Stack* stack) {",
        "    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);",
        "}",
        "TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {",
        "    m.fallback(torch::CppFunction::makeFromBoxedFunction<&CpuFallback>());",
        "}",
        "",
        "static void Call(const char* name, torch::jit::Stack stack) {",
        "    std::string ins;",
        "    for (const c10::IValue& v : stack) {",
        "        if (!v.isTensor() && !v.isNone()) continue;",
        '        ins += std::string(ins.empty() ? "" : ", ") + '
        '(v.isTensor() ? Ptr(v.toTensor().data_ptr()) : "null");',
        "    }",
        '    Record(std::string("{\\"ev\\": \\"call\\", \\"op\\": \\"") + name + "\\", '
        '\\"inputs\\": [" + ins + "]}");',
        '    auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");',
        "    {",
        "        c10::impl::IncludeDispatchKeyGuard npu(c10::DispatchKey::PrivateUse1);",
        "        op.callBoxed(&stack);",
        "    }",
        "    std::string outs;",
        "    for (const c10::IValue& v : stack) {",
        '        outs += std::string(outs.empty() ? "" : ", ") + '
        'Ptr(v.toTensor().data_ptr());',
        "    }",
        '    Record("{\\"ev\\": \\"result\\", \\"outputs\\": [" + outs + "]}");',
        "}",
        "",
        "int main() {",
        *calls,
        '    std::fputs(opgen_fake_npu::Log().c_str(), stdout);',
        "    return 0;",
        "}",
        "",
    ])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, object]]:
    d = tmp_path_factory.mktemp("npu_fake")
    src = d / "driver.cc"
    src.write_text(_driver())
    exe = d / "driver"
    tdir = _torch_dir()
    lib = tdir / "lib"
    # one program: the glue's support functions (a library links them from their own object)
    # are defined in this unit too
    cmd = [_cxx(), "-std=c++20", "-O0", _abi(), "-DOPGEN_TORCH_NPU", "-DOPGEN_TORCH_SUPPORT_UNIT=1",
           "-fopenmp",
           "-Wno-deprecated-declarations", f"-I{FAKE_INCLUDE}", f"-I{RUNTIME_INCLUDE}",
           f"-I{CC}", f"-I{GENERATED / 'cann' / 'aclnn'}",
           f"-isystem{tdir / 'include'}",
           f"-isystem{tdir / 'include' / 'torch' / 'csrc' / 'api' / 'include'}",
           f"-isystem{sysconfig.get_paths()['include']}",
           str(src), "-o", str(exe), f"-L{lib}", f"-Wl,-rpath,{lib}", "-lc10", "-ltorch_cpu",
           "-ltorch"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-8000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    sys.stderr.write(run.stdout)
    return [json.loads(line) for line in run.stdout.splitlines()]


def _calls(events: list[dict[str, object]]) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    current = ""
    for e in events:
        if e["ev"] == "call":
            current = str(e["op"]).split("::")[1]
            out[current] = []
        out[current].append(e)
    return out


@pytest.mark.parametrize("op, args, workspace", CASES, ids=[c[0] for c in CASES])
def test_aclnn_call_sequence(recorded: list[dict[str, object]], op: str, args: list[str],
                             workspace: int) -> None:
    v = aclnn_view(_spec(op))
    events = _calls(recorded)[op]
    assert [e["ev"] for e in events] == ["call", "workspace", "alloc", "run", "result"]
    call, ws, alloc, run, result = events
    # GetWorkspaceSize: the generated header's parameters, in its order
    assert ws["fn"] == v.workspace_fn
    got = ws["args"]
    assert isinstance(got, list)
    assert [a["name"] for a in got] == [p.name for p in v.params]
    ins, outs = call["inputs"], result["outputs"]
    assert isinstance(ins, list) and isinstance(outs, list)
    n_in, n_attr = len(v.inputs), len(v.attrs)
    assert [a["tensor"] for a in got[:n_in]] == ins  # an absent optional input: nullptr
    assert [a["tensor"] for a in got[n_in + n_attr:]] == outs  # the returned outputs
    for a, src in zip(got[n_in:n_in + n_attr], args[n_in:], strict=True):
        assert a["double"] == pytest.approx(float(src))
    # the workspace of the size it asked for, then aclnn<Op> with it, its executor and a stream
    assert alloc["size"] == workspace
    assert (alloc["ptr"] != "(nil)") == (workspace > 0)
    assert run["fn"] == v.run_fn
    assert run["workspace"] == alloc["ptr"] and run["size"] == workspace
    assert run["executor"] == ws["executor"] and run["stream"] not in (None, "(nil)")


if __name__ == "__main__":
    print(_driver() if sys.argv[1:] == ["driver"] else __doc__)
