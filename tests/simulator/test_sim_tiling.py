"""TilingLayout (C layout rules) and the default tiling policy's field-name conventions."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

import opgen_runtime as rt
from opgen_runtime.tiling import TensorSpec


def test_offsets_follow_c_alignment() -> None:
    layout = rt.TilingLayout.from_fields(
        "T",
        [
            ("a", "uint8_t"),
            ("b", "int64_t"),
            ("c", "float"),
            ("shape", "int64_t", 8),
            ("flag", "bool"),
            ("h", "uint16_t"),
        ],
    )
    assert [(f.name, f.offset) for f in layout.fields] == [
        ("a", 0),
        ("b", 8),
        ("c", 16),
        ("shape", 24),
        ("flag", 88),
        ("h", 90),
    ]
    assert layout.size == 96


def test_pack_round_trip() -> None:
    layout = rt.TilingLayout.from_fields(
        "T", [("n", "uint32_t"), ("s", "float"), ("dims", "int64_t", 3)]
    )
    raw = layout.pack({"n": 7, "s": 0.5, "dims": [2, 3]})
    assert struct.unpack("<If3q", raw[: 4 + 4 + 24]) == (7, 0.5, 2, 3, 0)


def test_pack_errors() -> None:
    layout = rt.TilingLayout.from_fields("T", [("n", "uint32_t")])
    with pytest.raises(rt.TilingError, match="no value for field 'n'"):
        layout.pack({})
    with pytest.raises(rt.TilingError, match="out of range"):
        layout.pack({"n": -1})
    with pytest.raises(rt.TilingError, match="no field"):
        layout.pack({"n": 1, "m": 2})
    with pytest.raises(rt.TilingError, match=r"has type 'string'"):
        rt.TilingLayout.from_fields("T", [("s", "std::string")])


def test_elementwise_policy() -> None:
    layout = rt.TilingLayout.from_fields(
        "T",
        [
            (n, "uint32_t")
            for n in ("totalLength", "blockLength", "tileNum", "tileLength", "tailLength")
        ],
    )
    x = TensorSpec((20_003,), np.float32)
    bd, v = rt.default_tiling(layout, {"x": x, "y": x}, {"z": x}, {})
    assert bd == 10  # ceil(20003 / 2048 floats per 8 KiB block)
    assert v["totalLength"] == 20_003
    assert v["blockLength"] * (bd - 1) < 20_003 <= v["blockLength"] * bd
    assert v["tileLength"] * 4 % 32 == 0
    assert 2 * 3 * v["tileLength"] * 4 <= rt.SOC_PROFILES["ascend910b"].ub_bytes
    assert v["tileNum"] == -(-v["blockLength"] // v["tileLength"])
    assert v["tailLength"] == v["blockLength"] - (v["tileNum"] - 1) * v["tileLength"]
    big = TensorSpec((16 << 20,), np.float32)
    bd, v = rt.default_tiling(layout, {"x": big, "y": big}, {"z": big}, {}, "ascend310p")
    assert bd == 8 and v["tileLength"] == 256 * 1024 // 24 // 8 * 8
    bd, _ = rt.default_tiling(layout, {"x": x}, {"z": x}, {}, block_dim=3)
    assert bd == 3


def test_shape_rank_present_rows_cols_and_attrs() -> None:
    layout = rt.TilingLayout.from_fields(
        "T",
        [
            ("rows", "uint32_t"),
            ("cols", "uint32_t"),
            ("outerSize", "uint64_t"),
            ("axisSize", "uint64_t"),
            ("xShape", "int64_t", 8),
            ("xRank", "uint32_t"),
            ("rank", "uint32_t"),
            ("gradYShape", "int64_t", 8),
            ("gammaPresent", "bool"),
            ("betaPresent", "uint32_t"),
            ("negativeSlope", "float"),
            ("epsilon", "float"),
            ("dstType", "int32_t"),
        ],
    )
    x = TensorSpec((2, 3, 5), np.float16)
    _, v = rt.default_tiling(
        layout,
        {
            "x": x,
            "grad_y": TensorSpec((4,), np.float16),
            "gamma": TensorSpec((5,), np.float16),
            "beta": None,
        },
        {"y": x},
        {"negative_slope": 0.1, "epsilon": 1e-5, "dst_type": "float16"},
    )
    assert (v["rows"], v["cols"], v["outerSize"], v["axisSize"]) == (6, 5, 6, 5)
    assert v["xShape"] == [2, 3, 5, 1, 1, 1, 1, 1] and v["xRank"] == 3 and v["rank"] == 3
    assert v["gradYShape"][:1] == [4]
    assert v["gammaPresent"] is True and v["betaPresent"] is False
    assert v["negativeSlope"] == 0.1
    assert v["dstType"] == rt.DataType.DT_FLOAT16 == 1
    layout.pack(v)


def test_unfillable_field_names_the_field_and_the_hook() -> None:
    layout = rt.TilingLayout.from_fields("FooTilingData", [("mystery", "uint32_t")])
    with pytest.raises(rt.TilingError, match=r"field 'mystery'.*tiling_hook"):
        rt.default_tiling(layout, {}, {"y": TensorSpec((4,), np.float32)}, {})


def test_ge_datatype_numbering() -> None:
    assert [
        rt.data_type(n).value
        for n in (
            "float32",
            "float16",
            "int8",
            "int32",
            "uint8",
            "int16",
            "uint16",
            "uint32",
            "int64",
            "uint64",
            "float64",
            "bool",
            "bfloat16",
        )
    ] == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 27]
    assert rt.dtype_defines({"x": "float16", "grad_y": np.float32}) == {
        "DTYPE_X": "half",
        "DTYPE_GRAD_Y": "float",
        "ORIG_DTYPE_X": "1",
        "ORIG_DTYPE_GRAD_Y": "0",
    }


def test_layout_matches_ctypes_for_half_field() -> None:
    layout = rt.TilingLayout.from_fields("T", [("a", "uint8_t"), ("h", "half")])
    assert layout.fields[1].offset == ctypes.alignment(ctypes.c_uint16)
    assert layout.pack({"a": 1, "h": 1.5})[2:] == np.float16(1.5).tobytes()
