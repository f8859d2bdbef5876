// opgen PyTorch support: each op's direct Python entry, the eager fast path of its wrapper.
//
// The generated wrapper calls `torch.ops.<cpu_ns>.<op>` when no input needs a gradient: a boxed
// dispatcher call whose Python-to-IValue conversion, GIL hand-over and result conversion cost
// more than the op itself on small tensors. The entry here is a METH_FASTCALL function bound to
// the op's description that runs the very same CPU kernel (RunCpu) on the same stack, when
// nothing the dispatcher would do differently is in play: every tensor a plain dense CPU tensor
// (torch.Tensor or Parameter: no subclass, no functorch or Python key), no dispatch or torch
// function mode, no thread-local dispatch keys included (vmap, grad transforms), no profiler
// callbacks (the dispatcher records the op for them), and no input needing a gradient while
// grad mode is on. Otherwise, or when an argument is of a kind it does not convert (a list, a
// string or dtype attr, a wrong type), it returns NotImplemented and the wrapper takes the
// dispatcher path, which gives torch's own errors. The kernel's own errors are the same
// exceptions either way (torch's translation of c10::TypeError / ValueError / Error).
// Compiled into the support object only (OPGEN_TORCH_PY_ENTRY); docs/pytorch.md,
// "The eager fast path".
#pragma once

#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/record_function.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>

#include <string>
#include <unordered_map>

namespace opgen_torch {

struct FastEntry {
    const OpDesc* desc;
    std::string names;     // GmNamesOf(desc)
    std::string qualname;  // <cpu_ns>::<op>, the function's __name__
    PyMethodDef def;
    PyObject* function;    // made on first request, never freed (as the library is never unloaded)
};

// The library's entries by the op's qualified name (`<ns>::<op>`); filled as its CpuKernels
// register, read under the GIL.
inline std::unordered_map<std::string, FastEntry*>& FastEntries() {
    static auto* entries = new std::unordered_map<std::string, FastEntry*>();
    return *entries;
}

// Inputs of at least this many bytes run with the GIL released, as torch's own ops do; a smaller
// call keeps it (releasing and retaking it costs more than the kernel's launch).
constexpr int64_t kReleaseGilBytes = int64_t{1} << 16;

// A dense CPU tensor the dispatcher would hand straight to the CPU kernel, or nullptr.
inline const at::Tensor* PlainTensor(PyObject* o) {
    if (!THPVariable_CheckExact(o)) return nullptr;  // a subclass may override anything
    const at::Tensor& t = THPVariable_Unpack(o);
    if (!t.defined()) return nullptr;
    // (autocast's CPU key is a fallthrough for every op but torch's own)
    const c10::DispatchKeySet keys = t.key_set() -
                                     c10::autograd_dispatch_keyset_with_ADInplaceOrView -
                                     c10::autocast_dispatch_keyset;
    return keys == c10::DispatchKeySet(c10::DispatchKey::CPU) ? &t : nullptr;
}

// An attr as the schema's scalar type converts it (int: not a bool; float: a float or an int),
// or false for the dispatcher to convert (and reject) it.
inline bool ScalarAttr(PyObject* o, AttrKind kind, c10::IValue* out) {
    switch (kind) {
        case AttrKind::kInt: {
            if (!PyLong_CheckExact(o)) return false;
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return false;
            }
            *out = c10::IValue(static_cast<int64_t>(v));
            return true;
        }
        case AttrKind::kFloat:
            if (PyFloat_CheckExact(o)) {
                *out = c10::IValue(PyFloat_AS_DOUBLE(o));
                return true;
            }
            if (PyLong_CheckExact(o)) {
                const double v = PyLong_AsDouble(o);
                if (v == -1.0 && PyErr_Occurred()) {
                    PyErr_Clear();
                    return false;
                }
                *out = c10::IValue(v);
                return true;
            }
            return false;
        case AttrKind::kBool:
            if (!PyBool_Check(o)) return false;
            *out = c10::IValue(o == Py_True);
            return true;
        default:
            return false;
    }
}

// Whether the dispatcher would do anything for this call but run the CPU kernel.
inline bool DispatcherNeeded() {
    return !(c10::impl::tls_local_dispatch_key_set().included_ - c10::default_included_set)
                .empty() ||
           c10::impl::TorchDispatchModeTLS::any_modes_set() ||
           at::impl::torch_function_mode_enabled() || at::hasCallbacks();
}

inline PyObject* NotHandled() { Py_RETURN_NOTIMPLEMENTED; }

inline PyObject* FastCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    HANDLE_TH_ERRORS
    const auto* e = static_cast<const FastEntry*>(PyCapsule_GetPointer(self, nullptr));
    if (e == nullptr) return nullptr;
    const OpDesc& d = *e->desc;
    const size_t ni = d.inputs.size(), na = d.attrs.size();
    if (static_cast<size_t>(nargs) != ni + na || DispatcherNeeded()) return NotHandled();
    torch::jit::Stack stack;
    stack.reserve(ni + na + d.outputs.size());
    bool grad = false;
    int64_t bytes = 0;
    for (size_t i = 0; i < ni; ++i) {
        if (args[i] == Py_None && d.inputs[i].optional) {
            stack.emplace_back();
            continue;
        }
        const at::Tensor* t = PlainTensor(args[i]);
        if (t == nullptr) return NotHandled();
        grad = grad || t->requires_grad();
        bytes += static_cast<int64_t>(t->nbytes());
        stack.emplace_back(*t);
    }
    if (grad && c10::GradMode::is_enabled()) return NotHandled();  // the autograd path
    for (size_t k = 0; k < na; ++k) {
        c10::IValue v;
        if (!ScalarAttr(args[ni + k], d.attrs[k].kind, &v)) return NotHandled();
        stack.push_back(std::move(v));
    }
    if (bytes >= kReleaseGilBytes) {
        pybind11::gil_scoped_release no_gil;
        RunCpu(d, e->names, &stack);
    } else {
        RunCpu(d, e->names, &stack);
    }
    if (stack.size() == 1) return THPVariable_Wrap(std::move(stack[0]).toTensor());
    PyObject* result = PyTuple_New(static_cast<Py_ssize_t>(stack.size()));
    if (result == nullptr) return nullptr;
    for (size_t o = 0; o < stack.size(); ++o) {
        PyObject* item = THPVariable_Wrap(std::move(stack[o]).toTensor());
        if (item == nullptr) {
            Py_DECREF(result);
            return nullptr;
        }
        PyTuple_SET_ITEM(result, static_cast<Py_ssize_t>(o), item);
    }
    return result;
    END_HANDLE_TH_ERRORS
}

inline void AddFastEntry(const std::string& qualname, const std::string& cpu_qualname,
                         const OpDesc& d) {
    auto* e = new FastEntry{&d, GmNamesOf(d), cpu_qualname, {}, nullptr};
    e->def = {e->qualname.c_str(), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&FastCall)),
              METH_FASTCALL, nullptr};
    FastEntries()[qualname] = e;
}

}  // namespace opgen_torch

// The entry of `qualname` (`<ns>::<op>`) as a borrowed reference, or None when this library
// has no such op. Called through ctypes.PyDLL (with the GIL) by opgen_runtime.torch_library.
extern "C" __attribute__((visibility("default"))) PyObject* opgen_torch_fast_entry(
    const char* qualname) {
    auto& entries = opgen_torch::FastEntries();
    const auto it = entries.find(qualname);
    if (it == entries.end()) return Py_None;  // borrowed, as ctypes' py_object takes it
    opgen_torch::FastEntry* e = it->second;
    if (e->function == nullptr) {
        PyObject* capsule = PyCapsule_New(e, nullptr, nullptr);
        if (capsule == nullptr) return nullptr;
        e->function = PyCFunction_New(&e->def, capsule);
        Py_DECREF(capsule);
        if (e->function == nullptr) return nullptr;
    }
    return e->function;
}
