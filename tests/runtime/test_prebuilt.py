"""The install's prebuilt layer (`opgen prebuild`): the simulator runtime object, the raw-pointer
scan and the precompiled headers are found there by the same content hashes as in the user
cache, so a cold cache compiles only the ops' own code; a stale or turned-off layer is never
used; the framework glue units include the precompiled glue header only when they open with it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from opgen.cli import main
from opgen_runtime import build, cachedir, native_library
from opgen_runtime.errors import BuildError
from opgen_runtime.prebuild import prebuild


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prebuilt layer holding the simulator's parts (built once for the module)."""
    root = tmp_path_factory.mktemp("prebuilt")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(build.STRICT_ENV, raising=False)
        mp.delenv(build.PCH_ENV, raising=False)
        results = prebuild(root, frameworks=False)
    assert results == [("simulator runtime object", "ok"), ("raw-pointer scan", "ok"),
                       ("precompiled simulator header", "ok"),
                       *((f"simulator API instances ({d})", "ok") for d in build.INSTANCE_DTYPES)]
    return root


@pytest.fixture
def cold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layer: Path) -> Path:
    """An empty user cache in front of the layer."""
    monkeypatch.setenv(cachedir.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(cachedir.PREBUILT_ENV, str(layer))
    monkeypatch.delenv(build.STRICT_ENV, raising=False)
    monkeypatch.delenv(build.PCH_ENV, raising=False)
    return tmp_path / "cache"


def test_a_cold_cache_uses_the_prebuilt_parts(cold: Path, layer: Path) -> None:
    runtime = build.runtime_object()
    scan = build.scanner_library()
    stub = build.precompiled_header()
    assert stub is not None
    instances = [build.instance_object(d) for d in build.INSTANCE_DTYPES]
    for path in (runtime, scan, stub, *instances):
        assert path.is_relative_to(layer), path
    assert stub.with_name(stub.name + ".gch").is_file()
    assert not (cold / "kernels" / "runtime").exists()  # nothing compiled into the user cache


def test_a_kernel_built_against_the_layer_runs(cold: Path) -> None:
    import numpy as np

    import opgen_runtime as rt

    src = cold.parent / "twice.cpp"
    src.write_text(r"""#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void twice(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                            GM_ADDR tiling)
{
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xGm, 64);
    Muls(t, t, 2.0f, 64);
    DataCopy(zGm, t, 64);
}
""")
    lib = build.build_kernel(src, entry="twice")
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, dtype=np.float32)
    rt.launch(lib, "twice", [x, z], block_dim=1, tiling=b"")
    np.testing.assert_array_equal(z, 2 * x)
    assert not (cold / "kernels" / "runtime").exists()
    assert not (cold / "kernels" / "pch").exists()


def test_another_flag_set_misses_the_layer(cold: Path, layer: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # strict mode changes the simulator's flags: its runtime is not the one the layer holds
    monkeypatch.setenv(build.STRICT_ENV, "1")
    runtime = build.runtime_object()
    assert runtime.is_relative_to(cold) and runtime.is_file()


@pytest.mark.parametrize("value", ["0", ""])
def test_the_layer_can_be_turned_off(cold: Path, monkeypatch: pytest.MonkeyPatch,
                                     value: str) -> None:
    monkeypatch.setenv(cachedir.PREBUILT_ENV, value)
    assert cachedir.prebuilt_root() is None
    assert cachedir.prebuilt(cold / "kernels" / "runtime" / "x.o") is None
    with pytest.raises(BuildError, match="turned off"):
        prebuild(None, frameworks=False)


def test_prebuild_cli_without_a_layer_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    monkeypatch.setenv(cachedir.PREBUILT_ENV, "0")
    assert main(["prebuild", "--no-frameworks"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("opgen: error: the prebuilt layer is turned off")
    assert "Traceback" not in err


def test_the_default_layer_is_under_the_install_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.delenv(cachedir.PREBUILT_ENV, raising=False)
    assert cachedir.prebuilt_root() == Path(sys.prefix) / "share" / "opgen" / "prebuilt"


@pytest.mark.parametrize(("text", "fits"), [
    ('#include "opgen_glue/test.h"\nint x;\n', True),
    ('// @generated\n//   comments\n\n#include "opgen_glue/test.h"\n', True),
    ('#define X 1\n#include "opgen_glue/test.h"\n', False),
    ('#include "other.h"\n#include "opgen_glue/test.h"\n', False),
    ('/* block */\n#include "opgen_glue/test.h"\n', False),  # only line comments are read
])
def test_a_glue_unit_fits_its_precompiled_header_only_when_it_opens_with_it(
        tmp_path: Path, text: str, fits: bool) -> None:
    src = tmp_path / "unit.cc"
    src.write_text(text)
    pch = native_library.GluePch("g++", "opgen_glue/test.h", ("-O1",), (b"v1",), "glue")
    assert pch.fits(src) is fits


def test_a_glue_header_precompiled_is_used_and_valid(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The glue mechanism end to end on a small header: built, found, included, and g++ reads
    the .gch (`-H` marks it with '!') instead of the header."""
    monkeypatch.setenv(cachedir.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(cachedir.PREBUILT_ENV, "0")
    inc = tmp_path / "inc" / "opgen_glue"
    inc.mkdir(parents=True)
    (inc / "test.h").write_text("#pragma once\n#include <vector>\ninline int glue() "
                                "{ return static_cast<int>(std::vector<int>(3).size()); }\n")
    cxx = build._compiler()
    flags = ("-O1", "-std=c++17", "-fPIC", f"-I{inc.parent}")
    pch = native_library.GluePch(cxx, "opgen_glue/test.h", flags, (b"v1",), "glue")
    src = tmp_path / "unit.cc"
    src.write_text('// a unit\n#include "opgen_glue/test.h"\nint use() { return glue(); }\n')
    assert pch.include_flags(src) == []  # not built: the unit parses the header
    stub = pch.build(RuntimeError)
    assert pch.find() == stub
    extra = pch.include_flags(src)
    assert extra == ["-include", str(stub)]
    proc = subprocess.run([cxx, *extra, *flags, "-Winvalid-pch", "-H", "-c", str(src), "-o",
                           str(tmp_path / "unit.o")], capture_output=True, text=True, check=True)
    assert proc.stderr.splitlines()[0] == f"! {stub}.gch"
    # another flag set is another header
    other = native_library.GluePch(cxx, "opgen_glue/test.h", ("-O2", *flags[1:]), (b"v1",),
                                   "glue")
    assert other.find() is None


def test_prebuild_again_is_a_no_op_that_drops_stale_parts(layer: Path) -> None:
    stale = [layer / "kernels" / "runtime" / "opgen-sim-runtime-0123.o",
             layer / "kernels" / "pch" / "0123"]
    stale[0].write_bytes(b"an older opgen's runtime")
    (stale[0].parent / (stale[0].name + ".lock")).write_bytes(b"")
    stale[1].mkdir()
    before = sorted(p for p in layer.rglob("*") if p not in stale)
    results = prebuild(layer, frameworks=False)
    assert all(status == "ok" for _name, status in results)
    assert not any(p.exists() for p in stale)
    assert not (stale[0].parent / (stale[0].name + ".lock")).exists()
    after = sorted(layer.rglob("*"))
    assert [p for p in before if not p.name.startswith("opgen-sim-runtime-0123")] == after


def test_the_generators_templates_come_compiled_from_the_layer(layer: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    import os
    import sys

    assert main(["prebuild", "--dir", str(layer), "--no-frameworks"]) == 0
    assert "compiled templates (" in capsys.readouterr().out
    assert list((layer / "templates").glob("*.cache"))
    # a fresh process with an empty cache renders every template without compiling one
    probe = ("import jinja2\n"
             "def refuse(*a, **k): raise SystemExit('compiled ' + str(a[1:2]))\n"
             "jinja2.Environment.compile = refuse\n"
             "from opgen.emit.common import environment\n"
             "env = environment()\n"
             "for n in env.list_templates(filter_func=lambda n: n.endswith('.j2')):\n"
             "    env.get_template(n)\n")
    env = {**os.environ, cachedir.CACHE_ENV: str(tmp_path / "cache"),
           cachedir.PREBUILT_ENV: str(layer)}
    proc = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "cache" / "templates").exists()
    # without the layer the same process compiles them
    env[cachedir.PREBUILT_ENV] = "0"
    proc = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode != 0 and "compiled" in proc.stderr


def test_a_layer_that_cannot_be_written_is_a_clear_error(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(["prebuild", "--dir", str(blocker / "layer"), "--no-frameworks"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"opgen: error: cannot write the prebuilt layer {blocker / 'layer'}: ")
    assert "--dir DIR or set OPGEN_PREBUILT_DIR" in err and "Traceback" not in err


def test_doctor_says_whether_the_shared_parts_are_built(cold: Path, layer: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from opgen import doctor

    def finding() -> doctor.Finding:
        return next(f for f in doctor.check_environment() if f.subject == "prebuilt parts")

    assert build.shared_parts_missing() == []
    assert finding().status == "ok" and str(layer) in finding().detail
    monkeypatch.setenv(cachedir.PREBUILT_ENV, "0")  # an install without the layer, cold cache
    missing = build.shared_parts_missing()
    assert "the simulator runtime object" in missing
    assert "the precompiled simulator header" in missing
    assert not (cold / "kernels" / "runtime").exists()  # asking builds nothing
    f = finding()
    assert f.status == "warn" and "run `opgen prebuild`" in f.detail
