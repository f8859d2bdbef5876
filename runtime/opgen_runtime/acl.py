"""An ACL facade with the seed's names, so the seed's registration script runs against the
simulator with only its import line changed (`from opgen_runtime import acl`).

Registration calls return 0 or an ACL-style error code, as pyACL does; the message of the
last failure is `acl.get_recent_err_msg()`. `acl.ops.<op_name>(*tensors, **attrs)` calls a
registered op on numpy arrays or torch tensors and returns the same kind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from . import registry
from .errors import SimulatorError
from .metadef import MetadefError
from .oplib import LibraryError

# Codes from acl_base.h.
ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_UNINITIALIZE = 100001
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_INVALID_FILE = 100003
ACL_ERROR_PARSE_FILE = 100006
ACL_ERROR_OP_NOT_FOUND = 100024
ACL_ERROR_OP_LOAD_FAILED = 100025
ACL_ERROR_KERNEL_NOT_FOUND = 100029
ACL_ERROR_KERNEL_ALREADY_REGISTERED = 100031
ACL_ERROR_REPEAT_FINALIZE = 100037
ACL_ERROR_FAILURE = 500000

_CODES: tuple[tuple[type[BaseException], int], ...] = (
    (registry.LibraryPathError, ACL_ERROR_INVALID_FILE),
    (LibraryError, ACL_ERROR_OP_LOAD_FAILED),
    (MetadefError, ACL_ERROR_PARSE_FILE),
    (registry.RegistrationOrderError, ACL_ERROR_INVALID_PARAM),
    (registry.KernelNotFoundError, ACL_ERROR_KERNEL_NOT_FOUND),
    (registry.RegistrationConflictError, ACL_ERROR_KERNEL_ALREADY_REGISTERED),
    (registry.OpNotRegisteredError, ACL_ERROR_OP_NOT_FOUND),
    (registry.RegistryError, ACL_ERROR_INVALID_PARAM),
    (SimulatorError, ACL_ERROR_FAILURE),
)

_state: dict[str, Any] = {"initialized": False, "device": None, "message": ""}


def _guard(fn: Callable[..., Any]) -> Callable[..., int]:
    def wrapped(*args: Any) -> int:
        if not _state["initialized"]:
            _state["message"] = (f"acl.{fn.__name__}: call acl.init() first (ACL is not "
                                 "initialised)")
            return ACL_ERROR_UNINITIALIZE
        try:
            fn(*args)
        except Exception as exc:
            for cls, code in _CODES:
                if isinstance(exc, cls):
                    _state["message"] = str(exc)
                    return code
            raise
        _state["message"] = ""
        return ACL_SUCCESS

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


def init(config_path: str | None = None) -> int:
    if _state["initialized"]:
        _state["message"] = "acl.init(): ACL is already initialised"
        return ACL_ERROR_REPEAT_INITIALIZE
    _state["initialized"] = True
    return ACL_SUCCESS


def finalize() -> int:
    if not _state["initialized"]:
        _state["message"] = "acl.finalize(): ACL is not initialised"
        return ACL_ERROR_REPEAT_FINALIZE
    _state["initialized"] = False
    _state["device"] = None
    return ACL_SUCCESS


def get_recent_err_msg() -> str:
    message: str = _state["message"]
    return message


class _Rt:
    """acl.rt: devices. The simulator has one device, 0."""

    @staticmethod
    def set_device(device_id: int) -> int:
        if not _state["initialized"]:
            _state["message"] = "acl.rt.set_device(): call acl.init() first"
            return ACL_ERROR_UNINITIALIZE
        if device_id != 0:
            _state["message"] = (f"acl.rt.set_device({device_id}): the simulator has one "
                                 "device, 0")
            return ACL_ERROR_INVALID_PARAM
        _state["device"] = device_id
        return ACL_SUCCESS

    @staticmethod
    def reset_device(device_id: int) -> int:
        _state["device"] = None
        return ACL_SUCCESS

    @staticmethod
    def get_device() -> tuple[int, int]:
        device = _state["device"]
        return (device if device is not None else 0), ACL_SUCCESS


class _Op:
    """acl.op: the registration calls."""

    load_operator_library = staticmethod(_guard(registry.load_operator_library))
    register_operator = staticmethod(_guard(registry.register_operator))
    register_operator_model = staticmethod(_guard(registry.register_operator_model))
    register_operator_gradient = staticmethod(_guard(registry.register_operator_gradient))


def _to_numpy(value: Any) -> tuple[Any, Any]:
    """(numpy view, a function turning a numpy result back into the caller's kind)."""
    module = type(value).__module__
    if module.startswith("torch"):
        import torch

        tensor = value.detach()
        if tensor.device.type != "cpu":
            raise registry.OpCallError(f"acl.ops: tensor on {tensor.device}; the simulator "
                                       "runs on the CPU: move it with .cpu()")
        return tensor.contiguous().numpy(), torch.from_numpy
    return value, lambda a: a


class _Ops:
    """acl.ops: `load_operator_library` and every registered op as a function."""

    load_operator_library = staticmethod(_guard(registry.load_operator_library))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)

        def op(*tensors: Any, **attrs: Any) -> Any:
            if not _state["initialized"]:
                raise registry.RegistryError(f"acl.ops.{name}: call acl.init() first")
            converted = [_to_numpy(t) if t is not None else (None, None) for t in tensors]
            back = next((c[1] for c in converted if c[1] is not None), lambda a: a)
            result = registry.call(name, *(c[0] for c in converted), **attrs)
            if isinstance(result, tuple):
                return tuple(back(r) for r in result)
            return back(result)

        op.__name__ = name
        return op


rt = _Rt()
op = _Op()
ops = _Ops()

__all__ = ["finalize", "get_recent_err_msg", "init", "op", "ops", "rt"]

if os.environ.get("OPGEN_ACL_AUTO_INIT") == "1":  # pragma: no cover - convenience for scripts
    init()
