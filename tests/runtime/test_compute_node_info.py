"""TilingContext::GetComputeNodeInfo() (gert::ComputeNodeInfo and AnchorInstanceInfo, as
opbase's tiling base classes read the node) and REG_FORMAT_ERROR_MSG at namespace scope:
tests/fixtures/node_info_probe is an op_host that saves what the node info says as tiling data."""

from __future__ import annotations

import struct

import pytest

from conftest import ROOT
from opgen_runtime.dtypes import data_type
from opgen_runtime.ophost import HostTensor, build_op_host, load_op_host
from opgen_runtime.soc import get_soc

FIXTURE = ROOT / "tests" / "fixtures" / "node_info_probe" / "op_host" / "node_info_probe.cpp"
SOC = get_soc("ascend910b")


@pytest.fixture(scope="module")
def host():  # type: ignore[no-untyped-def]
    return load_op_host(build_op_host([FIXTURE], name="node_info_probe"))


def _words(host, bias: bool, xs: int, n: int = 7) -> list[int]:  # type: ignore[no-untyped-def]
    x = HostTensor((4, 8), "float16")
    inputs = [[x], [HostTensor((8,), "float16")] if bias else [],
              [HostTensor((2, i + 1), "int32") for i in range(xs)]]
    outputs = [x, HostTensor((1,), "int64")]
    t = host.tiling("NodeInfoProbe", inputs, outputs, [("float", 0.5), ("int", n)], SOC)
    return list(struct.unpack(f"<{len(t.tiling) // 8}q", t.tiling))


def _dt(name: str) -> int:
    return int(data_type(name))


def test_node_info_with_every_input_present(host) -> None:  # type: ignore[no-untyped-def]
    w = _words(host, bias=True, xs=3)
    assert w[:4] == [3, 5, 2, 2]  # IR inputs, instances, IR outputs, outputs
    assert w[4:10] == [0, 1, 1, 1, 2, 3]  # x at 0, bias at 1, xs: 3 from 2
    assert w[10:14] == [0, 1, 1, 1]  # one instance per output
    assert w[14:19] == [_dt("float16")] * 2 + [_dt("int32")] * 3
    assert w[19:21] == [_dt("float16"), _dt("int64")]
    assert w[21:] == [2, 7]  # attrs: their number, the int one


def test_an_absent_optional_input_has_no_instance(host) -> None:  # type: ignore[no-untyped-def]
    w = _words(host, bias=False, xs=2, n=-3)
    assert w[:4] == [3, 3, 2, 2]
    assert w[4:10] == [0, 1, 1, 0, 1, 2]  # bias: none (start where it would be), xs from 1
    assert w[14:17] == [_dt("float16"), _dt("int32"), _dt("int32")]
    assert w[-2:] == [2, -3]


def test_an_empty_dynamic_input(host) -> None:  # type: ignore[no-untyped-def]
    w = _words(host, bias=True, xs=0)
    assert w[:4] == [3, 2, 2, 2]
    assert w[4:10] == [0, 1, 1, 1, 2, 0]
