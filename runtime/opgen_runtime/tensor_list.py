"""A dynamic (list) input as its kernel receives it: one GM buffer in CANN's ListTensorDesc
layout, which `AscendC::ListTensorDesc` (kernel_operator_list_tensor_intf.h) decodes.

The layout (asc-devkit's ListTensorDesc documentation and its list_tensor_desc_input example),
in little-endian uint64 words from the buffer's start:

    word 0                 ptrOffset: bytes from the start to the data-pointer array
    per instance i, dim+1 words:
        dim | i << 32      the instance's rank (low 32 bits) and its index (high 32 bits)
        shape[0..dim)      its dims
    at ptrOffset           one data pointer (a GM address) per instance

Every instance has the first one's rank: the decoder strides by it. Rank-0 instances use the
pointers-only form: word 1 is `count << 32` (dim 0), word 2 is 0xffffffff, ptrOffset is 24.

On the NPU the descriptor and the tensors are separate device allocations. Here the instances'
data is copied into the same buffer, behind the descriptor, each at a 32-byte boundary with a
device allocation's padding (launcher.gm_allocation): the launch bounds-checks a kernel's GM
accesses against the buffers it is given, and one buffer holds the whole list.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .launcher import GM_ALIGN, aligned_empty, gm_allocation

_U64 = np.dtype("<u8")
_POINTERS_ONLY_MARK = 0xFFFFFFFF


def descriptor_words(shapes: Sequence[tuple[int, ...]]) -> int:
    """How many uint64 words the descriptor (header, shapes, pointers) of `shapes` takes."""
    n = len(shapes)
    rank = len(shapes[0]) if shapes else 0
    head = 3 if rank == 0 else 1 + n * (1 + rank)
    return head + n


def pack(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """One GM buffer (uint8, 32-byte aligned) holding the ListTensorDesc of `arrays` and, after
    it, a copy of each array's bytes; the descriptor's pointers address those copies."""
    if not arrays:
        raise ValueError("a list input needs at least one tensor")
    shapes = [tuple(int(d) for d in a.shape) for a in arrays]
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        raise ValueError(
            f"every tensor of a list input must have the same rank (CANN's ListTensorDesc "
            f"describes them all with the first one's), got shapes {shapes}")
    n = len(arrays)
    words = descriptor_words(shapes)
    offsets = []
    at = gm_allocation(words * 8) - GM_ALIGN  # the descriptor, rounded up to 32 bytes
    for a in arrays:
        offsets.append(at)
        at += gm_allocation(a.nbytes)
    buf = aligned_empty(at)
    # zeroed where nothing is copied: after the descriptor and after each tensor (the padding a
    # kernel copying whole 32-byte blocks reads), not the whole buffer first
    buf[words * 8:offsets[0]] = 0
    for off, nxt, a in zip(offsets, [*offsets[1:], at], arrays, strict=True):
        buf[off + a.nbytes:nxt] = 0
    base = int(buf.__array_interface__["data"][0])
    desc = np.zeros(words, dtype=_U64)
    if rank == 0:
        desc[0] = 24
        desc[1] = n << 32
        desc[2] = _POINTERS_ONLY_MARK
        ptr_at = 3
    else:
        ptr_at = 1 + n * (1 + rank)
        desc[0] = ptr_at * 8
        for i, shape in enumerate(shapes):
            w = 1 + i * (1 + rank)
            desc[w] = rank | (i << 32)
            desc[w + 1:w + 1 + rank] = shape
    for i, (a, off) in enumerate(zip(arrays, offsets, strict=True)):
        desc[ptr_at + i] = base + off
        flat = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        buf[off:off + flat.size] = flat
    buf[:words * 8] = desc.view(np.uint8)
    return buf



def unpack(buf: np.ndarray, shapes: Sequence[tuple[int, ...]], dtype: np.dtype) -> list[np.ndarray]:
    """The tensors `pack` laid out in `buf` (views, in order): a dynamic output's results."""
    words = descriptor_words(list(shapes))
    at = gm_allocation(words * 8) - GM_ALIGN
    out = []
    for shape in shapes:
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        out.append(buf[at:at + n].view(dtype).reshape(shape))
        at += gm_allocation(n)
    return out
