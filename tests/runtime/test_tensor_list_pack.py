"""A list input's GM buffer (opgen_runtime.tensor_list.pack): CANN's ListTensorDesc, then each
tensor's bytes, each followed by zeros up to the next 32-byte allocation (the padding a kernel
copying whole 32-byte blocks of a tail reads), whatever the memory held before."""

from __future__ import annotations

import numpy as np

from opgen_runtime import tensor_list
from opgen_runtime.launcher import gm_allocation


def test_pack_copies_each_tensor_and_zeroes_only_the_gaps() -> None:
    arrays = [np.arange(1, 4, dtype=np.float32), np.full((2, 5), 7, dtype=np.float32),
              np.arange(1, 10, dtype=np.float32).reshape(3, 3)]
    for _ in range(3):  # fresh buffers may reuse freed memory holding earlier lists' bytes
        junk = [np.full(4096, 0xAB, np.uint8) for _ in range(8)]
        del junk
        buf = tensor_list.pack([a.reshape(1, -1) for a in arrays])
        base = int(buf.__array_interface__["data"][0])
        desc = buf[:8].view(np.uint64)
        ptr_at = int(desc[0]) // 8
        words = buf.view(np.uint64)
        offsets = [int(words[ptr_at + i]) - base for i in range(len(arrays))]
        ends = [*offsets[1:], buf.size]
        assert offsets[0] % 32 == 0 and np.all(buf[ptr_at * 8 + 8 * len(arrays):offsets[0]] == 0)
        for a, off, end in zip(arrays, offsets, ends, strict=True):
            np.testing.assert_array_equal(buf[off:off + a.nbytes].view(np.float32), a.ravel())
            assert end - off == gm_allocation(a.nbytes) or end == buf.size
            assert np.all(buf[off + a.nbytes:end] == 0)
        for a, packed in zip(arrays, tensor_list.unpack(buf, [(1, a.size) for a in arrays],
                                                        np.dtype(np.float32)), strict=True):
            np.testing.assert_array_equal(packed.ravel(), a.ravel())
