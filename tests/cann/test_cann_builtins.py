"""CANN's built-in op types (opgen/data/cann_builtin_ops.txt) are refused as a custom op's type:
by `opgen new`, and by validation wherever the op type comes from (op_type or op_name)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opgen import cann_builtins
from opgen.cli import main

MIRROR = Path(os.environ.get("OPGEN_OPS_MATH_MIRROR", "/work/.mirror/hicann+ops-math/repo"))

SPEC = """\
op_name: {name}
{op_type}input_desc:
  - name: x
    dtype: [float32]
    format: [ND]
    shape: [-2]
output_desc:
  - name: y
    dtype: [float32]
    format: [ND]
    infer: same_as(x)
reference: x
"""


def test_list_is_sorted_unique_and_names_its_source() -> None:
    text = (Path(cann_builtins.__file__).parent / "data" / cann_builtins.DATA_FILE).read_text()
    assert "hicann/ops-math" in text and "python -m opgen.cann_builtins --write" in text
    names = cann_builtins._names(text.splitlines())
    assert names == sorted(set(names))
    assert {"Add", "Mul", "Cast", "Pows"} <= cann_builtins.builtin_op_types()
    assert len(names) > 400
    assert not [n for n in names if n.endswith("Custom")]


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no ops-math mirror")
def test_list_matches_the_ops_math_mirror() -> None:
    assert cann_builtins.main([str(MIRROR)]) == 0, "regenerate: python -m opgen.cann_builtins " \
        f"--write {MIRROR}"


def test_clash_suggests_the_custom_type() -> None:
    assert cann_builtins.clash("Add") == "AddCustom"
    assert cann_builtins.clash("AddCustom") is None
    assert cann_builtins.clash("LeakyReluGain") is None


def test_new_refuses_a_builtin_op_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "add", "--inputs", "x", "--outputs", "y"]) == 2
    err = capsys.readouterr().err
    assert "'Add', one of CANN's built-in operators" in err
    assert "AddCustom" in err and "opgen new add_custom" in err
    assert not list(tmp_path.rglob("*.yaml"))


@pytest.mark.parametrize(("name", "op_type", "where"), [
    ("add", "", "spec.yaml:1:10: error: op_name 'add' derives the op type 'Add'"),
    ("my_add", "op_type: Add\n", "spec.yaml:2:10: error: op_type 'Add' is one of CANN's"),
])
def test_validate_refuses_a_builtin_op_type(name: str, op_type: str, where: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC.format(name=name, op_type=op_type))
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "-q", "spec.yaml"]) == 2
    err = capsys.readouterr().err
    assert where in err
    assert err.rstrip().endswith("use op_type: AddCustom")


def test_validate_accepts_the_custom_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC.format(name="add", op_type="op_type: AddCustom\n"))
    monkeypatch.chdir(tmp_path)
    main(["validate", "-q", "spec.yaml"])
    assert "built-in" not in capsys.readouterr().err
