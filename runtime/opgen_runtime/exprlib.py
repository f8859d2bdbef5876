"""Helpers that generated expression code calls (as `_x.<name>`) where a framework has no
single-call equivalent. Importing this module imports no framework; each helper imports its
framework when first called."""

from __future__ import annotations

from typing import Any


def opt(value: Any, default: Any) -> Any:
    """An optional input, or `default` when it is absent."""
    return default if value is None else value


def np_relu(a: Any) -> Any:
    import numpy as np

    a = np.asarray(a)
    return np.maximum(a, 0).astype(a.dtype)


def np_sum_to(a: Any, like: Any) -> Any:
    """Sum `a` down to the shape of `like` (undo numpy broadcasting)."""
    import numpy as np

    a = np.asarray(a)
    target = np.shape(like)
    while a.ndim > len(target):
        a = a.sum(axis=0)
    for i, n in enumerate(target):
        if n == 1 and a.shape[i] != 1:
            a = a.sum(axis=i, keepdims=True)
    return a.reshape(target)


def torch_sum_to(a: Any, like: Any) -> Any:
    import torch

    shape = tuple(like.shape)
    if tuple(a.shape) == shape:
        return a
    lead = a.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(shape)
                                if n == 1 and a.shape[lead + i] != 1]
    out = torch.sum(a, dim=dims, keepdim=True) if dims else a
    return out.reshape(shape)


def torch_maximum(a: Any, b: Any) -> Any:
    import torch

    if not isinstance(a, torch.Tensor):
        return torch.clamp(b, min=a)
    if not isinstance(b, torch.Tensor):
        return torch.clamp(a, min=b)
    return torch.maximum(a, b)


def torch_minimum(a: Any, b: Any) -> Any:
    import torch

    if not isinstance(a, torch.Tensor):
        return torch.clamp(b, max=a)
    if not isinstance(b, torch.Tensor):
        return torch.clamp(a, max=b)
    return torch.minimum(a, b)


def tf_sum_to(a: Any, like: Any) -> Any:
    import tensorflow as tf

    target = tf.shape(like)
    # r0: the axes along which `target` was broadcast to a's shape
    axes, _ = tf.raw_ops.BroadcastGradientArgs(s0=target, s1=tf.shape(a))
    return tf.reshape(tf.reduce_sum(a, axis=axes), target)


def tf_maximum(a: Any, b: Any) -> Any:
    import tensorflow as tf

    a, b = _tf_pair(a, b)
    return tf.maximum(a, b)


def tf_minimum(a: Any, b: Any) -> Any:
    import tensorflow as tf

    a, b = _tf_pair(a, b)
    return tf.minimum(a, b)


def tf_where(cond: Any, a: Any, b: Any) -> Any:
    import tensorflow as tf

    a, b = _tf_pair(a, b)
    return tf.where(cond, a, b)


def _tf_pair(a: Any, b: Any) -> tuple[Any, Any]:
    """Python scalars take the dtype of the tensor beside them (TF does not promote)."""
    import tensorflow as tf

    if not tf.is_tensor(a) and tf.is_tensor(b):
        a = tf.cast(a, b.dtype)
    elif not tf.is_tensor(b) and tf.is_tensor(a):
        b = tf.cast(b, a.dtype)
    return a, b
