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
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/autograd/variable_info.h>
#include <torch/csrc/utils/object_ptr.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace opgen_torch {

struct FastEntry {
    const OpDesc* desc;
    std::string names;     // GmNamesOf(desc)
    std::string qualname;  // <cpu_ns>::<op>, the function's __name__
    PyMethodDef def;
    PyObject* function;    // made on first request, never freed (as the library is never unloaded)
    // The op's gradient formula (opgen_torch_set_formula), or null: a call recording autograd
    // history then goes to the wrapper's autograd.Function. Held for the life of the process.
    PyObject* setup = nullptr;     // setup(*args, output) -> ctx, running the op's setup_context
    PyObject* backward = nullptr;  // backward(ctx, *grads), the op's formula
    std::string node_name;         // grad_fn's name(), as the autograd.Function's node names it
    std::string op;                // `<ns>::<op>`, as users call it (for messages)
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

// -- autograd history -----------------------------------------------------------------------------
// A call that records autograd history gets the node an autograd.Function of the op's formula
// would make (the wrapper's <Op> Function: setup_context at forward, the formula at backward), as
// torch's own C++ nodes are made, without Function.apply's Python (about 4 us a call, and as
// much again at backward). The ctx is a torch_support.FormulaCtx: the formula's tensors are
// saved as SavedVariables (version checks, saved-tensor hooks, no reference cycle through an
// output), its other state stays in the ctx.
struct FormulaNode final : torch::autograd::Node {
    const FastEntry* entry = nullptr;
    PyObject* ctx = nullptr;  // owned
    std::vector<torch::autograd::SavedVariable> saved;
    std::vector<torch::autograd::VariableInfo> outputs;  // what an undefined grad's zeros are
    size_t num_inputs = 0;
    std::mutex mu;

    std::string name() const override { return entry->node_name; }

    // Compiled autograd asks every node of the graph for this before a backward. This node's
    // backward is the op's Python formula called from C++, which compiled autograd cannot trace:
    // the error says so, naming the op and the two ways out (torch's own says only
    // "compiled_args not implemented").
    void compiled_args(torch::dynamo::autograd::CompiledNodeArgs&) const override {
        TORCH_CHECK_NOT_IMPLEMENTED(
            false, entry->node_name, " (the op ", entry->op,
            "): compiled autograd cannot trace this node, which opgen's direct eager entry made and "
            "whose backward is the op's Python formula called from C++. Set OPGEN_TORCH_FAST=0 "
            "before the op is imported (its calls then record an autograd.Function node, which "
            "compiled autograd traces), or run this backward outside compiled autograd.");
    }

    void release_variables() override {
        std::lock_guard<std::mutex> lock(mu);
        for (auto& v : saved) v.reset_data();
    }

    torch::autograd::variable_list apply(torch::autograd::variable_list&& grads) override {
        std::lock_guard<std::mutex> lock(mu);
        pybind11::gil_scoped_acquire gil;
        at::OptionalDeviceGuard device_guard;
        THPObjectPtr tensors(PyTuple_New(static_cast<Py_ssize_t>(saved.size())));
        if (!tensors) throw python_error();
        for (size_t i = 0; i < saved.size(); ++i) {
            const at::Tensor t = saved[i].unpack(getptr());
            PyObject* item = t.defined() ? THPVariable_Wrap(t) : (Py_INCREF(Py_None), Py_None);
            if (item == nullptr) throw python_error();
            PyTuple_SET_ITEM(tensors.get(), static_cast<Py_ssize_t>(i), item);
        }
        if (PyObject_SetAttrString(ctx, "saved_tensors", tensors.get()) != 0) throw python_error();
        std::vector<PyObject*> argv(grads.size() + 1);
        std::vector<THPObjectPtr> held(grads.size());
        argv[0] = ctx;
        for (size_t o = 0; o < grads.size(); ++o) {
            // an output no gradient reached: zeros, as a Function's materialized grads
            const at::Tensor g = grads[o].defined() ? grads[o] : outputs[o].zeros(device_guard);
            held[o] = THPObjectPtr(THPVariable_Wrap(g));
            if (!held[o]) throw python_error();
            argv[o + 1] = held[o].get();
        }
        THPObjectPtr result(PyObject_Vectorcall(entry->backward, argv.data(), argv.size(), nullptr));
        PyObject_SetAttrString(ctx, "saved_tensors", Py_None);
        if (!result) throw python_error();
        torch::autograd::variable_list out(num_inputs);
        auto take = [&](size_t i, PyObject* o) {
            if (o == Py_None) return;
            TORCH_CHECK(THPVariable_Check(o), entry->node_name, ": the formula returned a ",
                        Py_TYPE(o)->tp_name, " for input ", i, ", not a tensor or None");
            out[i] = THPVariable_Unpack(o);
        };
        if (PyTuple_Check(result.get())) {
            const size_t n = static_cast<size_t>(PyTuple_GET_SIZE(result.get()));
            for (size_t i = 0; i < num_inputs && i < n; ++i) take(i, PyTuple_GET_ITEM(result.get(), i));
        } else if (num_inputs > 0) {
            take(0, result.get());
        }
        return out;
    }

    ~FormulaNode() override {
        if (ctx != nullptr && Py_IsInitialized()) {
            pybind11::gil_scoped_acquire gil;
            Py_DECREF(ctx);
        }
    }
};

// Whether any input carries a forward-mode gradient (a dual tensor): the dispatcher's path
// then (the op's formula has no jvp, and the kernel would drop the tangent).
inline bool AnyForwardGrad(const at::Tensor* const* in, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (in[i] != nullptr && in[i]->_fw_grad(/*level=*/0).defined()) return true;
    }
    return false;
}

// Gives the outputs of a call whose inputs need gradients their history: runs the op's
// setup_context on a FormulaCtx, then makes the node. Returns the result, or null (an error).
inline PyObject* Record(const FastEntry& e, PyObject* const* args, size_t nargs,
                        const at::Tensor* const* in, size_t ni, std::vector<at::Tensor>& outs,
                        PyObject* result) {
    THPObjectPtr owned(result);
    std::vector<PyObject*> argv(args, args + nargs);
    argv.push_back(result);
    THPObjectPtr ctx(PyObject_Vectorcall(e.setup, argv.data(), argv.size(), nullptr));
    if (!ctx) return nullptr;
    // the outputs setup_context marked non-differentiable get no history
    std::vector<const c10::TensorImpl*> non_diff;
    THPObjectPtr marked(PyObject_GetAttrString(ctx.get(), "non_differentiable"));
    if (!marked) return nullptr;
    if (PyTuple_Check(marked.get())) {
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(marked.get()); ++k) {
            PyObject* o = PyTuple_GET_ITEM(marked.get(), k);
            if (THPVariable_Check(o)) non_diff.push_back(THPVariable_Unpack(o).unsafeGetTensorImpl());
        }
    }
    if (PyObject_SetAttrString(ctx.get(), "non_differentiable", Py_None) != 0) return nullptr;

    auto node = c10::make_intrusive<FormulaNode>();
    node->entry = &e;
    node->num_inputs = ni;
    std::vector<at::Tensor> inputs(ni);
    for (size_t i = 0; i < ni; ++i) {
        if (in[i] != nullptr) inputs[i] = *in[i];
    }
    node->set_next_edges(torch::autograd::collect_next_edges(inputs));
    for (at::Tensor& o : outs) {
        const bool differentiable =
            torch::autograd::isDifferentiableType(o.scalar_type()) &&
            std::find(non_diff.begin(), non_diff.end(), o.unsafeGetTensorImpl()) == non_diff.end();
        node->outputs.emplace_back(o);
        if (differentiable) {
            torch::autograd::set_history(o, node);
        } else {
            node->add_input_metadata(torch::autograd::Node::undefined_input());
        }
    }
    // the tensors setup_context saved, as SavedVariables (an output's without its grad_fn)
    THPObjectPtr to_save(PyObject_GetAttrString(ctx.get(), "to_save"));
    if (!to_save) return nullptr;
    if (PyTuple_Check(to_save.get())) {
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(to_save.get()); ++k) {
            PyObject* o = PyTuple_GET_ITEM(to_save.get(), k);
            if (o == Py_None) {
                node->saved.emplace_back();
                continue;
            }
            if (!THPVariable_Check(o)) {
                PyErr_Format(PyExc_TypeError, "%s: save_for_backward takes tensors or None, not %s",
                             e.node_name.c_str(), Py_TYPE(o)->tp_name);
                return nullptr;
            }
            const at::Tensor& t = THPVariable_Unpack(o);
            bool is_output = false;
            for (const at::Tensor& x : outs) is_output |= x.unsafeGetTensorImpl() == t.unsafeGetTensorImpl();
            node->saved.emplace_back(t, is_output);
        }
    }
    if (PyObject_SetAttrString(ctx.get(), "to_save", Py_None) != 0) return nullptr;
    // needs_input_grad as a Function's: one per argument, attrs False
    THPObjectPtr needs(PyTuple_New(static_cast<Py_ssize_t>(nargs)));
    if (!needs) return nullptr;
    for (size_t i = 0; i < nargs; ++i) {
        const bool need = i < ni && in[i] != nullptr && in[i]->requires_grad();
        PyObject* b = need ? Py_True : Py_False;
        Py_INCREF(b);
        PyTuple_SET_ITEM(needs.get(), static_cast<Py_ssize_t>(i), b);
    }
    if (PyObject_SetAttrString(ctx.get(), "needs_input_grad", needs.get()) != 0) return nullptr;
    node->ctx = ctx.release();
    return owned.release();
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
    const at::Tensor* in[opgen_host::kSimMaxArgs] = {};
    bool grad = false;
    int64_t bytes = 0;
    for (size_t i = 0; i < ni; ++i) {
        if (args[i] == Py_None && d.inputs[i].optional) {
            stack.emplace_back();
            continue;
        }
        const at::Tensor* t = PlainTensor(args[i]);
        if (t == nullptr) return NotHandled();
        in[i] = t;
        grad = grad || t->requires_grad();
        bytes += static_cast<int64_t>(t->nbytes());
        stack.emplace_back(*t);
    }
    const bool record = grad && c10::GradMode::is_enabled();
    if (record && e->setup == nullptr) return NotHandled();  // the wrapper's autograd.Function
    if (AnyForwardGrad(in, ni)) return NotHandled();
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
    std::vector<at::Tensor> outs;
    if (record) {
        for (const c10::IValue& v : stack) outs.push_back(v.toTensor());
    }
    PyObject* result = nullptr;
    if (stack.size() == 1) {
        result = THPVariable_Wrap(std::move(stack[0]).toTensor());
    } else {
        result = PyTuple_New(static_cast<Py_ssize_t>(stack.size()));
        if (result == nullptr) return nullptr;
        for (size_t o = 0; o < stack.size(); ++o) {
            PyObject* item = THPVariable_Wrap(std::move(stack[o]).toTensor());
            if (item == nullptr) {
                Py_DECREF(result);
                return nullptr;
            }
            PyTuple_SET_ITEM(result, static_cast<Py_ssize_t>(o), item);
        }
    }
    if (result == nullptr || !record) return result;
    return Record(*e, args, static_cast<size_t>(nargs), in, ni, outs, result);
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

// Gives the entry of `qualname` the op's gradient formula (FastEntry::setup, backward, the node's
// name): calls recording autograd history then take the entry too. Returns 0, or -1 when this
// library has no such op. Called through ctypes.PyDLL (with the GIL) by
// opgen_runtime.torch_library.
extern "C" __attribute__((visibility("default"))) int opgen_torch_set_formula(
    const char* qualname, PyObject* setup, PyObject* backward, const char* node_name) {
    auto& entries = opgen_torch::FastEntries();
    const auto it = entries.find(qualname);
    if (it == entries.end()) return -1;
    opgen_torch::FastEntry* e = it->second;
    Py_INCREF(setup);
    Py_INCREF(backward);
    Py_XDECREF(e->setup);
    Py_XDECREF(e->backward);
    e->setup = setup;
    e->backward = backward;
    e->node_name = node_name;
    e->op = qualname;
    return 0;
}
