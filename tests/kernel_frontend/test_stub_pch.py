"""The precompiled stub headers: a kernel parsed against them gives what parsing the stubs in
place gives (declarations, errors, dependencies), and they are used only where they can."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT
from opgen.kernel_frontend import parse as kp

KERNELS = sorted({*ROOT.glob("specs/*.cpp"), *(ROOT / "tests").rglob("*.cpp")})


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    yield


def _both(path: Path, monkeypatch: pytest.MonkeyPatch,
          defines: tuple[str, ...] = ()) -> tuple[kp.ParseResult, kp.ParseResult]:
    show = kp.default_display(ROOT)
    with_pch = kp.parse_kernel(path, show, defines)
    with monkeypatch.context() as m:
        m.setattr(kp, "_uses_stub_pch", lambda main, forced, content=None: False)
        in_place = kp.parse_kernel(path, show, defines)
    return with_pch, in_place


def test_the_pch_gives_the_in_place_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    used = 0
    for path in KERNELS:
        if not kp._uses_stub_pch(str(path), ()):
            continue
        used += 1
        for defines in ((), ("DTYPE_X=float", "DTYPE_Y=half")):
            with_pch, in_place = _both(path, monkeypatch, defines)
            assert with_pch == in_place, path
    assert used >= 5
    pch = kp._stub_pch()
    assert pch is not None
    Path(pch).unlink()  # (a cleaned cache) built again on the next parse
    assert kp._stub_pch() == pch and Path(pch).is_file()


def test_a_kernel_with_errors_and_a_header(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "helper.h").write_text("#pragma once\nconstexpr int HELPER = 1;\n")
    kernel = tmp_path / "k.cpp"
    kernel.write_text('// a kernel\n#include "kernel_operator.h"\n#include "helper.h"\n'
                      'extern "C" __global__ __aicore__ void k(GM_ADDR x) { no_such(x); }\n'
                      "UndeclaredType y;\n")
    assert kp._uses_stub_pch(str(kernel), ())
    with_pch, in_place = _both(kernel, monkeypatch)
    assert with_pch == in_place
    assert not with_pch.info.ok
    assert str(tmp_path / "helper.h") in with_pch.dependencies


@pytest.mark.parametrize("source, forced, own_header, uses", [
    ('#include "kernel_operator.h"\n', False, False, True),
    ('/* c */\n// c\n#include <kernel_operator.h>  // the stubs\n', False, False, True),
    ('#define DTYPE_X float\n#include "kernel_operator.h"\n', False, False, False),
    ('// splice \\\n#include "kernel_operator.h"\n', False, False, False),
    ('#include "other.h"\n#include "kernel_operator.h"\n', False, False, False),
    ('#include "kernel_operator.h"\n', True, False, False),  # a forced header comes first
    ('#include "kernel_operator.h"\n', False, True, False),  # the kernel's own header
])
def test_where_the_pch_is_used(tmp_path: Path, source: str, forced: bool, own_header: bool,
                               uses: bool) -> None:
    kernel = tmp_path / "k.cpp"
    kernel.write_text(source)
    if own_header:
        (tmp_path / "kernel_operator.h").write_text("#pragma once\n")
    assert kp._uses_stub_pch(str(kernel), [str(tmp_path / "t.h")] if forced else []) is uses
