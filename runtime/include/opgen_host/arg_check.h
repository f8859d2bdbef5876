// opgen host: an op call's argument checks, shared by the PyTorch and TensorFlow kernels.
//
// The generated OpDesc carries an ArgChecks compiled from the spec by opgen.checks: the inputs'
// declared shapes, attr ranges and constraints, as postfix programs. CheckArgs evaluates them,
// and CheckEmpty applies the empty-tensor rule, with the messages and in the order of
// opgen_runtime.argcheck (the registry's twin of this file), so every frontend refuses a call
// with the same text: "<op>(): ..." (docs/reliability.md, "Frontends agree").
// Framework-neutral: no TensorFlow, no torch, no simulator headers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "opgen_host/op_desc.h"
#include "opgen_host/tiling_policy.h"

namespace opgen_host {

struct CheckNode {
    enum Kind { kLit, kAttr, kRank, kDim, kNeg, kAdd, kSub, kMul } kind;
    double value = 0;    // kLit
    bool is_int = true;  // kLit: an integer literal
    int index = -1;      // kAttr: the attr; kRank, kDim: the input
    int64_t axis = 0;    // kDim
};

struct CheckExpr {
    const char* text = "";
    std::vector<CheckNode> rpn;  // empty: no bound
};

struct RangeCheck {
    int attr;
    const char* name;  // the attr's
    const char* text;  // as the spec reads, canonical: "[-rank(x), rank(x))"
    CheckExpr lo, hi;
    bool lo_closed, hi_closed;
};

struct ConstraintCheck {
    const char* text;
    const char* op;  // == != < <= > >=
    CheckExpr lhs, rhs;
    std::vector<int> inputs;  // skipped when one of them is absent
};

struct DeclaredShape {
    int rank;                   // -1: any
    std::vector<int64_t> dims;  // -1: any size
};

struct ArgChecks {
    const char* op_name;
    const char* spec_path;
    std::vector<DeclaredShape> shapes;  // per input
    std::vector<RangeCheck> ranges;
    std::vector<ConstraintCheck> constraints;
};

// A number as opgen_runtime.argcheck.number_text prints it: an int as is, a float as %g.
struct Num {
    bool is_int = true;
    int64_t i = 0;
    double f = 0;
    double d() const { return is_int ? static_cast<double>(i) : f; }
};

inline std::string NumberText(const Num& n) {
    if (n.is_int) return std::to_string(n.i);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", n.f);
    return buf;
}

inline std::string ShapeTextOf(const int64_t* dims, size_t rank) {
    std::string out = "(";
    for (size_t k = 0; k < rank; ++k) out += (k ? ", " : "") + std::to_string(dims[k]);
    return out + (rank == 1 ? ",)" : ")");
}

inline std::string DeclaredText(const DeclaredShape& s) {
    std::string out = "[";
    for (size_t k = 0; k < s.dims.size(); ++k) out += (k ? ", " : "") + std::to_string(s.dims[k]);
    return out + "]";
}

namespace detail {

inline Num Combine(const Num& a, const Num& b, CheckNode::Kind k) {
    Num r;
    if (a.is_int && b.is_int) {
        r.i = k == CheckNode::kAdd ? a.i + b.i : k == CheckNode::kSub ? a.i - b.i : a.i * b.i;
        return r;
    }
    r.is_int = false;
    r.f = k == CheckNode::kAdd ? a.d() + b.d() : k == CheckNode::kSub ? a.d() - b.d()
                                                                     : a.d() * b.d();
    return r;
}

// What a check is, for its messages ("the range of attr 'axis'"): its parts, joined only when
// a message is built (a passing call allocates nothing).
struct What {
    const char* head;
    const char* name;
    const char* tail;
    std::string str() const { return std::string(head) + name + tail; }
};

// n elements of T, in place up to kInline (every op and check the specs write), else on the
// heap: a passing check allocates nothing.
template <typename T, size_t kInline>
class InlineArray {
public:
    explicit InlineArray(size_t n) {
        if (n > kInline) {
            heap_.resize(n);
            data_ = heap_.data();
        }
    }
    InlineArray(const InlineArray&) = delete;  // data_ may point into this object
    InlineArray& operator=(const InlineArray&) = delete;
    T* data() { return data_; }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }

private:
    T inline_[kInline];
    std::vector<T> heap_;
    T* data_ = inline_;
};

// A stack of at most `cap` values.
class NumStack {
public:
    explicit NumStack(size_t cap) : values_(cap) {}
    void push_back(const Num& v) { values_[size_++] = v; }
    void pop_back() { --size_; }
    const Num& back() const { return values_[size_ - 1]; }
    bool empty() const { return size_ == 0; }

private:
    InlineArray<Num, 32> values_;
    size_t size_ = 0;
};

// `shapes[i]`: input i's dims and rank (present ones only are read); `attr_value(i)` attr i.
template <typename Inputs, typename AttrFn>
std::string Evaluate(const ArgChecks& c, const What& what, const CheckExpr& e,
                     const Inputs& inputs, const int64_t* const* dims, const size_t* ranks,
                     const AttrFn& attr_value, Num* out) {
    NumStack stack(e.rpn.size());
    for (const CheckNode& n : e.rpn) {
        Num v;
        switch (n.kind) {
            case CheckNode::kLit:
                v.is_int = n.is_int;
                if (n.is_int) v.i = static_cast<int64_t>(n.value);
                else v.f = n.value;
                break;
            case CheckNode::kAttr: v = attr_value(n.index); break;
            case CheckNode::kRank: v.i = static_cast<int64_t>(ranks[n.index]); break;
            case CheckNode::kDim: {
                const int64_t rank = static_cast<int64_t>(ranks[n.index]);
                const int64_t k = n.axis < 0 ? n.axis + rank : n.axis;
                const char* t = inputs[static_cast<size_t>(n.index)].name;
                if (k < 0 || k >= rank) {
                    return std::string(c.op_name) + "(): " + what.str() + " of " + c.spec_path +
                           " reads dim(" + t + ", " + std::to_string(n.axis) +
                           "), but input '" + t + "' has shape " +
                           ShapeTextOf(dims[n.index], ranks[n.index]);
                }
                v.i = dims[n.index][k];
                break;
            }
            case CheckNode::kNeg:
                v = stack.back();
                stack.pop_back();
                if (v.is_int) v.i = -v.i;
                else v.f = -v.f;
                break;
            default: {
                const Num b = stack.back();
                stack.pop_back();
                const Num a = stack.back();
                stack.pop_back();
                v = Combine(a, b, n.kind);
                break;
            }
        }
        stack.push_back(v);
    }
    *out = stack.empty() ? Num{} : stack.back();
    return "";
}

inline bool Compare(const Num& a, const Num& b, const char* op) {
    const bool ints = a.is_int && b.is_int;
    const bool eq = op[0] == '=' || op[0] == '!';
    const bool with_equal = op[1] == '=';
    if (eq) {
        const bool same = ints ? a.i == b.i : a.d() == b.d();
        return op[0] == '=' ? same : !same;
    }
    if (op[0] == '<') {
        return with_equal ? (ints ? a.i <= b.i : a.d() <= b.d()) : (ints ? a.i < b.i : a.d() < b.d());
    }
    return with_equal ? (ints ? a.i >= b.i : a.d() >= b.d()) : (ints ? a.i > b.i : a.d() > b.d());
}

inline Num FromValue(const Value& v) {
    Num n;
    if (v.kind == Value::Kind::kFloat) {
        n.is_int = false;
        n.f = v.f;
    } else {
        n.i = v.i;
    }
    return n;
}

}  // namespace detail

// The declared shapes, the attr ranges, then the constraints of a call (opgen_runtime.argcheck:
// check_declared, check_ranges_and_constraints). `in[i]`: input i's shape (absent: !present);
// `attrs[k].value`: attr k's value. Returns "" or the message.
template <typename Inputs, typename Attrs>
std::string CheckArgs(const ArgChecks& c, const Inputs& inputs, const ShapeRef* in,
                      const Attrs& attrs) {
    // (the messages' strings are built only when a check fails: a passing call allocates nothing
    // for inputs and checks of the usual counts)
    const auto op = [&c] { return std::string(c.op_name) + "(): "; };
    const size_t ni = inputs.size();
    detail::InlineArray<const int64_t*, 16> dims_of(ni);
    detail::InlineArray<size_t, 16> ranks_of(ni);
    const int64_t** dims = dims_of.data();
    size_t* ranks = ranks_of.data();
    for (size_t i = 0; i < ni; ++i) {
        dims[i] = in[i].dims;
        ranks[i] = in[i].rank;
    }
    for (size_t i = 0; i < ni && i < c.shapes.size(); ++i) {
        const DeclaredShape& s = c.shapes[i];
        if (!in[i].present || s.rank < 0) continue;
        const auto got = [&] { return ShapeTextOf(in[i].dims, in[i].rank); };
        if (static_cast<size_t>(s.rank) != in[i].rank) {
            return op() + "input '" + inputs[i].name + "' must have rank " +
                   std::to_string(s.rank) + " (spec shape " + DeclaredText(s) + "), got shape " +
                   got();
        }
        for (size_t k = 0; k < in[i].rank; ++k) {
            if (s.dims[k] >= 0 && s.dims[k] != in[i].dims[k]) {
                return op() + "input '" + inputs[i].name + "' must have size " +
                       std::to_string(s.dims[k]) + " in dim " + std::to_string(k) +
                       " (spec shape " + DeclaredText(s) + "), got shape " + got();
            }
        }
    }
    auto attr_value = [&](int k) { return detail::FromValue(attrs[static_cast<size_t>(k)].value); };
    for (const RangeCheck& r : c.ranges) {
        const Value& v = attrs[static_cast<size_t>(r.attr)].value;
        const detail::What label_what{"the range of attr '", r.name, "'"};
        Num lo, hi;
        const bool has_lo = !r.lo.rpn.empty(), has_hi = !r.hi.rpn.empty();
        std::string err;
        if (has_lo) err = detail::Evaluate(c, label_what, r.lo, inputs, dims, ranks, attr_value,
                                           &lo);
        if (err.empty() && has_hi) err = detail::Evaluate(c, label_what, r.hi, inputs, dims,
                                                          ranks, attr_value, &hi);
        if (!err.empty()) return err;
        for (int32_t k = 0; k < v.size(); ++k) {
            const Num x = detail::FromValue(v.At(k));
            const bool ok =
                (!has_lo || detail::Compare(x, lo, r.lo_closed ? ">=" : ">")) &&
                (!has_hi || detail::Compare(x, hi, r.hi_closed ? "<=" : "<"));
            if (ok) continue;
            const std::string here = std::string(r.lo_closed ? "[" : "(") +
                                     (has_lo ? NumberText(lo) : "-inf") + ", " +
                                     (has_hi ? NumberText(hi) : "inf") +
                                     (r.hi_closed ? "]" : ")");
            const std::string label = v.is_list()
                                          ? std::string(r.name) + "[" + std::to_string(k) + "]"
                                          : std::string(r.name);
            return op() + "attr '" + label + "' is " + NumberText(x) + ", outside its range " +
                   r.text + (here == r.text ? "" : ", here " + here) + " (" + c.spec_path + ")";
        }
    }
    for (const ConstraintCheck& k : c.constraints) {
        bool skip = false;
        for (int i : k.inputs) skip = skip || !in[i].present;
        if (skip) continue;
        const detail::What what{"the constraint `", k.text, "`"};
        Num a, b;
        std::string err = detail::Evaluate(c, what, k.lhs, inputs, dims, ranks, attr_value, &a);
        if (err.empty()) err = detail::Evaluate(c, what, k.rhs, inputs, dims, ranks, attr_value, &b);
        if (!err.empty()) return err;
        if (!detail::Compare(a, b, k.op)) {
            return op() + "the inputs break the constraint `" + k.text + "` of " + c.spec_path +
                   ": " + k.lhs.text + " is " + NumberText(a) + " and " + k.rhs.text + " is " +
                   NumberText(b);
        }
    }
    return "";
}

// The empty-tensor rule (opgen_runtime.argcheck.check_empty): *skip is true when no output has
// elements (no launch); an input without elements and an output with some is an error.
template <typename Inputs, typename Outputs, typename OutDims>
std::string CheckEmpty(const char* op_name, const Inputs& inputs, const ShapeRef* in,
                       const Outputs& outputs, const OutDims* out, bool* skip) {
    int empty = -1;
    for (size_t i = 0; i < inputs.size() && empty < 0; ++i) {
        if (!in[i].present) continue;
        for (size_t k = 0; k < in[i].rank; ++k) {
            if (in[i].dims[k] == 0) empty = static_cast<int>(i);
        }
    }
    bool all_empty = !outputs.empty();
    int full = -1;
    int64_t full_size = 0;
    for (size_t o = 0; o < outputs.size(); ++o) {
        int64_t n = 1;
        for (int64_t d : out[o]) n *= d;
        if (n != 0) {
            all_empty = false;
            if (full < 0) {
                full = static_cast<int>(o);
                full_size = n;
            }
        }
    }
    *skip = all_empty;
    if (empty < 0 || full < 0) return "";
    const ShapeRef& e = in[empty];
    const auto& fd = out[full];
    std::vector<int64_t> fv(fd.begin(), fd.end());
    return std::string(op_name) + "(): input '" + inputs[static_cast<size_t>(empty)].name +
           "' is empty (shape " + ShapeTextOf(e.dims, e.rank) + ") but output '" +
           outputs[static_cast<size_t>(full)].name + "' would have " +
           std::to_string(full_size) + (full_size == 1 ? " element" : " elements") +
           " (shape " + ShapeTextOf(fv.data(), fv.size()) +
           "); an op runs on empty inputs only when every output is empty too";
}

}  // namespace opgen_host
