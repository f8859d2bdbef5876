"""native_library.prefetch: the kernel variants of a framework library start building on a
background thread before the framework is imported; the next variants() of the same metadefs
takes the result, and a failure is raised by variants() in its caller's thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from opgen_runtime import native_library, tf_support, torch_library

METADEF = ROOT / "generated" / "metadef" / "element_add.json"


def _symbol(op: str, column: int) -> str:
    return f"test_blob_{op}_{column}"


class VariantError(RuntimeError):
    pass


def test_variants_take_the_prefetched_builds() -> None:
    native_library.prefetch([METADEF])
    key = native_library._prefetch_key([METADEF])
    assert key in native_library._PREFETCHED
    built = native_library.variants([METADEF], _symbol, VariantError)
    assert key not in native_library._PREFETCHED  # taken
    direct = native_library.variants([METADEF], _symbol, VariantError)
    assert [(v.symbol, v.path) for v in built] == [(v.symbol, v.path) for v in direct]
    assert [v.symbol for v in built] == ["test_blob_element_add_0"]
    assert all(v.path.is_file() for v in built)


def test_a_failed_prefetch_is_raised_by_variants_as_without_it(tmp_path: Path) -> None:
    missing = tmp_path / "no_such_op.json"
    with pytest.raises(Exception) as direct:  # no prefetch: what the caller sees
        native_library.variants([missing], _symbol, VariantError)
    native_library.prefetch([missing])  # returns at once; the thread's failure is kept
    with pytest.raises(Exception) as info:
        native_library.variants([missing], _symbol, VariantError)
    assert type(info.value) is type(direct.value)
    assert str(info.value) == str(direct.value) and "no_such_op.json" in str(info.value)
    assert native_library._prefetch_key([missing]) not in native_library._PREFETCHED


def test_no_prefetch_when_the_library_will_not_be_built(monkeypatch: pytest.MonkeyPatch) -> None:
    key = native_library._prefetch_key([METADEF])
    native_library._PREFETCHED.pop(key, None)
    monkeypatch.setenv(torch_library.KERNELS_ENV, "python")  # the Python CPU kernels
    torch_library.prefetch([METADEF])
    monkeypatch.setenv("OPGEN_TF_LIBRARY", "/nowhere/lib.so")  # a prebuilt TF library
    tf_support.prefetch([METADEF])
    monkeypatch.setenv("CXX", "no-such-compiler-opgen")
    monkeypatch.delenv(torch_library.KERNELS_ENV)
    torch_library.prefetch([METADEF])
    assert key not in native_library._PREFETCHED
