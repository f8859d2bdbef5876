"""`opgen import-msopgen` reads back the msopgen JSON that `opgen generate` writes.

For every example spec, the op description in generated/cann/ (the golden test keeps it equal to
what `opgen generate` writes) is imported with the CLI, and the imported spec must describe the
same op in everything msopgen's format carries: the op type, every tensor's name, param type,
dtypes and formats in column order, and every attr's name, msopgen type and default. (The
format carries no shapes, shape rules, kernel, reference or backward, and msopgen has no `type`
attr: it spells one `int`, so that is what an import can know.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from opgen.api import load_spec
from opgen.cli import main
from opgen.emit.cann_naming import file_stem, msopgen_attr_type
from opgen.emit.cann_op_desc import op_desc_path
from opgen.model import OpSpec, TensorDesc

SPECS = sorted(p for p in (ROOT / "specs").iterdir() if p.suffix in (".yaml", ".json"))


def _tensor(t: TensorDesc) -> tuple[Any, ...]:
    return (t.name, t.param_type, t.dtypes, t.formats)


def _interface(spec: OpSpec) -> tuple[Any, ...]:
    """What an msopgen op description says about an op."""
    return (spec.op_type, tuple(_tensor(t) for t in spec.inputs),
            tuple(_tensor(t) for t in spec.outputs),
            tuple((a.name, msopgen_attr_type(a.type), a.default) for a in spec.attrs))


@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_generated_op_description_imports_as_the_same_op(
        spec_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = load_spec(spec_path)
    written = ROOT / "generated" / op_desc_path(original)
    assert main(["import-msopgen", str(written), "-o", str(tmp_path)]) == 0
    # msopgen names an op by its type only; the import derives the name as msopgen names files
    imported_path = tmp_path / f"{file_stem(original.op_type)}.yaml"
    assert capsys.readouterr().out == f"created {imported_path}\n"
    imported = load_spec(imported_path)
    assert imported.op_name == written.stem
    assert _interface(imported) == _interface(original)


def test_only_the_banner_key_is_skipped(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # the banner is opgen's own key; any other key msopgen does not define stays an error
    text = (ROOT / "generated" / "cann" / "element_add.json").read_text("utf-8")
    src = tmp_path / "element_add.json"
    src.write_text(text.replace('"language": "cpp",', '"language": "cpp", "banner": 1,'), "utf-8")
    assert main(["import-msopgen", str(src), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{src}:5:24: error: unknown key 'banner' in the spec" in err
    assert "@generated" not in err
