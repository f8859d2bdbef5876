// opgen host: the runtime's default tiling policy in C++, for framework ops that must fill a
// kernel's tiling struct without Python: the TensorFlow OpKernel (opgen_tf/sim_op.h) computes it
// per call, and the CANN host tiling of every op (generated/cann/op_host/<stem>_tiling.h) calls
// it from `<OpType>DefaultTiling`.
//
// This is a port of opgen_runtime/tiling.py (plan_elementwise, default_tiling and the packing
// of TilingLayout.pack); docs/simulator.md "Default tiling" is the specification. The two are
// proven equal, byte for byte, by tests/tf/test_tf_tiling_policy.py over random shapes, dtypes,
// layouts and SoCs, and through the CANN host tiling by tests/cann/test_tiling_equivalence.py.
//
// Framework-neutral and self-contained (standard headers only): `opgen generate` copies it into
// the CANN tree as op_host/opgen_tiling_policy.h, which is built on a machine without opgen.
// An include guard, not `#pragma once`: tools check that copy as a file of its own.
#ifndef OPGEN_HOST_TILING_POLICY_H
#define OPGEN_HOST_TILING_POLICY_H

#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace opgen_host {

// -- SoC profiles (opgen_runtime/soc.py) ---------------------------------------------------------
struct SocProfile {
    const char* name;
    int64_t ub_bytes;
    int64_t vector_cores;
    int64_t cube_cores;        // 0: the vector cores are the AI Cores
    int64_t system_workspace;  // bytes: what PlatformAscendC::GetLibApiWorkSpaceSize reports
};

inline constexpr SocProfile kSocProfiles[] = {
    {"ascend910b", 192 * 1024, 48, 24, 16 * 1024 * 1024},
    {"ascend310p", 256 * 1024, 8, 8, 2 * 1024 * 1024},
};
inline constexpr const char* kDefaultSoc = "ascend910b";

// The profile of a SoC name (case-insensitive), or nullptr.
inline const SocProfile* FindSoc(const char* name) {
    for (const SocProfile& p : kSocProfiles) {
        size_t i = 0;
        while (name[i] != '\0' && p.name[i] != '\0' &&
               std::tolower(static_cast<unsigned char>(name[i])) == p.name[i]) {
            ++i;
        }
        if (name[i] == '\0' && p.name[i] == '\0') return &p;
    }
    return nullptr;
}

// -- the element-wise split (plan_elementwise) -------------------------------------------------
inline constexpr int64_t kBufferNum = 2;
inline constexpr int64_t kMinBlockBytes = 8 * 1024;
inline constexpr int64_t kShapePad = 1;
inline constexpr int64_t kAutoBlockDim = INT64_MIN;  // let the policy choose blockDim

struct ElementwisePlan {
    int64_t block_dim;
    int64_t total_length;
    int64_t block_length;
    int64_t tile_length;
    int64_t tile_num;
    int64_t tail_length;
};

inline int64_t CeilDiv(int64_t a, int64_t b) { return a / b + ((a % b != 0) ? 1 : 0); }

// Splits `total` elements over blocks and tiles so that `buffer_num` buffers of every tensor fit
// the Unified Buffer and every tile is a multiple of 32 bytes. `itemsizes` are the element sizes
// of the present tensors (none: 4 bytes).
inline ElementwisePlan PlanElementwise(const int64_t* itemsizes, int n, int64_t total,
                                       const SocProfile& soc, int64_t block_dim = kAutoBlockDim,
                                       int64_t buffer_num = kBufferNum) {
    int64_t min_size = 4, max_size = 4, sum = 4;
    if (n > 0) {
        min_size = max_size = itemsizes[0];
        sum = 0;
        for (int i = 0; i < n; ++i) {
            min_size = itemsizes[i] < min_size ? itemsizes[i] : min_size;
            max_size = itemsizes[i] > max_size ? itemsizes[i] : max_size;
            sum += itemsizes[i];
        }
    }
    const int64_t align = 32 / min_size > 1 ? 32 / min_size : 1;
    const int64_t per_elem = sum * buffer_num;
    const int64_t fit = soc.ub_bytes / per_elem / align * align;
    const int64_t max_tile = fit > align ? fit : align;
    if (total <= 0) return {1, 0, 0, align, 0, 0};
    if (block_dim == kAutoBlockDim) {
        const int64_t per_block = kMinBlockBytes / max_size;
        const int64_t min_block = per_block > align ? per_block : align;
        const int64_t wanted = CeilDiv(total, min_block);
        block_dim = soc.vector_cores < wanted ? soc.vector_cores : wanted;
    }
    if (block_dim < 1) block_dim = 1;
    const int64_t block_length = CeilDiv(CeilDiv(total, block_dim), align) * align;
    block_dim = CeilDiv(total, block_length);
    if (block_dim < 1) block_dim = 1;
    const int64_t tile_length = max_tile < block_length ? max_tile : block_length;
    const int64_t tile_num = CeilDiv(block_length, tile_length);
    const int64_t tail_length = block_length - (tile_num - 1) * tile_length;
    return {block_dim, total, block_length, tile_length, tile_num, tail_length};
}

// -- tiling struct layout and values -----------------------------------------------------------
// C scalar types of tiling fields (opgen_runtime/tiling.py _CTYPES, normalised). `long` is 8 bytes
// (LP64), `char` one byte; F16 is IEEE binary16 bits.
enum class CType : uint8_t { Bool, Char, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, F16 };

struct FieldDesc {
    const char* name;
    CType ctype;
    const char* ctype_name;  // as the kernel spells it, for messages
    uint32_t offset;
    int32_t array_len;  // -1: a scalar
};

// A value the policy offers for a field: a number, a bool, or a list (shapes, list attrs).
struct Value {
    enum class Kind : uint8_t { kInt, kFloat, kBool, kInts, kFloats, kBools };
    Kind kind = Kind::kInt;
    int64_t i = 0;
    double f = 0.0;
    const int64_t* ints = nullptr;  // kInts, kBools (0/1)
    const double* floats = nullptr;  // kFloats
    int32_t len = 0;

    static Value Int(int64_t v) { Value x; x.kind = Kind::kInt; x.i = v; return x; }
    static Value Float(double v) { Value x; x.kind = Kind::kFloat; x.f = v; return x; }
    static Value Bool(bool v) { Value x; x.kind = Kind::kBool; x.i = v ? 1 : 0; return x; }
    static Value Ints(const int64_t* v, int32_t n) {
        Value x; x.kind = Kind::kInts; x.ints = v; x.len = n; return x;
    }
    static Value Bools(const int64_t* v, int32_t n) {
        Value x; x.kind = Kind::kBools; x.ints = v; x.len = n; return x;
    }
    static Value Floats(const double* v, int32_t n) {
        Value x; x.kind = Kind::kFloats; x.floats = v; x.len = n; return x;
    }
    bool is_list() const { return kind == Kind::kInts || kind == Kind::kFloats || kind == Kind::kBools; }
    int32_t size() const { return is_list() ? len : 1; }
    // Element k of a list, or the scalar itself (k == 0): as a scalar Value.
    Value At(int32_t k) const {
        switch (kind) {
            case Kind::kInts: return Int(ints[k]);
            case Kind::kBools: return Bool(ints[k] != 0);
            case Kind::kFloats: return Float(floats[k]);
            default: return *this;
        }
    }
};

// One input or output as the policy sees it. `camel` is the name in lowerCamelCase (grad_y ->
// gradY), the prefix of its <name>Shape / <name>Rank / <name>Present fields.
struct TensorArg {
    const char* camel;
    bool is_input;
    bool present;  // false: an absent optional input (shape (), rank 0)
    int64_t itemsize;
    const int64_t* dims;
    int32_t rank;
};

// An attr, offered under its snake_case and lowerCamelCase names. A dtype-valued attr is its
// ge::DataType code (an Int).
struct AttrArg {
    const char* name;
    const char* camel;
    Value value;
};

namespace detail {

inline bool EndsWithName(const char* field, const char* prefix, const char* suffix) {
    const size_t np = std::strlen(prefix), ns = std::strlen(suffix), nf = std::strlen(field);
    return nf == np + ns && std::strncmp(field, prefix, np) == 0 &&
           std::strcmp(field + np, suffix) == 0;
}

inline std::string Repr(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16) {
        return std::to_string(static_cast<int64_t>(v)) + ".0";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// double -> IEEE binary16 bits, rounding to nearest even (CPython's PyFloat_Pack2, which
// struct.pack('<e') uses). Returns false on overflow.
inline bool DoubleToHalf(double x, uint16_t* out) {
    const uint16_t sign = std::signbit(x) ? 1 : 0;
    if (std::isnan(x)) { *out = static_cast<uint16_t>(0x7e00 | (sign << 15)); return true; }
    if (std::isinf(x)) { *out = static_cast<uint16_t>(0x7c00 | (sign << 15)); return true; }
    x = std::fabs(x);
    if (x == 0.0) { *out = static_cast<uint16_t>(sign << 15); return true; }
    int e = 0;
    double f = std::frexp(x, &e);
    f *= 2.0;
    e -= 1;
    if (e >= 16) return false;
    if (e < -25) {
        f = 0.0;
        e = 0;
    } else if (e < -14) {
        f = std::ldexp(f, 14 + e);
        e = 0;
    } else {
        e += 15;
        f -= 1.0;
    }
    f *= 1024.0;
    uint16_t bits = static_cast<uint16_t>(f);
    if ((f - bits > 0.5) || ((f - bits == 0.5) && (bits % 2 == 1))) {
        ++bits;
        if (bits == 1024) {
            bits = 0;
            ++e;
            if (e == 31) return false;
        }
    }
    *out = static_cast<uint16_t>(bits | (e << 10) | (sign << 15));
    return true;
}

struct IntRange {
    int bytes;
    bool is_signed;
};

inline IntRange RangeOf(CType t) {
    switch (t) {
        case CType::I8: return {1, true};
        case CType::U8: return {1, false};
        case CType::I16: return {2, true};
        case CType::U16: return {2, false};
        case CType::I32: return {4, true};
        case CType::U32: return {4, false};
        case CType::I64: return {8, true};
        default: return {8, false};  // U64
    }
}

inline int SizeOf(CType t) {
    switch (t) {
        case CType::Bool: case CType::Char: case CType::I8: case CType::U8: return 1;
        case CType::I16: case CType::U16: case CType::F16: return 2;
        case CType::I32: case CType::U32: case CType::F32: return 4;
        default: return 8;
    }
}

// Stores one scalar into the struct (tiling.py _convert + ctypes assignment).
inline std::string Store(const char* st, const FieldDesc& f, const Value& v, uint8_t* dst) {
    // The message prefix, built only on an error (this runs for every field of every call).
    const auto where = [&] {
        return std::string("tiling struct ") + st + ": field '" + f.name + "' (" + f.ctype_name +
               ")";
    };
    const bool is_float = v.kind == Value::Kind::kFloat;
    const double as_double = is_float ? v.f : static_cast<double>(v.i);
    switch (f.ctype) {
        case CType::F16: {
            uint16_t bits = 0;
            if (!DoubleToHalf(as_double, &bits)) {
                return where() + ": " + Repr(as_double) + " is too large for a half";
            }
            std::memcpy(dst, &bits, 2);
            return "";
        }
        case CType::F32: {
            const float x = static_cast<float>(as_double);
            std::memcpy(dst, &x, 4);
            return "";
        }
        case CType::F64: std::memcpy(dst, &as_double, 8); return "";
        case CType::Bool: *dst = (is_float ? v.f != 0.0 : v.i != 0) ? 1 : 0; return "";
        default: break;
    }
    if (is_float && !(std::isfinite(v.f) && v.f == std::floor(v.f))) {
        return where() + ": " + Repr(v.f) + " is not an integer";
    }
    if (is_float && std::fabs(v.f) >= 9.2e18) return where() + ": cannot convert " + Repr(v.f);
    const int64_t iv = is_float ? static_cast<int64_t>(v.f) : v.i;
    if (f.ctype == CType::Char) {
        if (iv < 0 || iv > 255) return where() + ": cannot convert " + std::to_string(iv);
        *dst = static_cast<uint8_t>(iv);
        return "";
    }
    const IntRange r = RangeOf(f.ctype);
    const int bits = r.bytes * 8;
    if (r.is_signed) {
        const int64_t lo = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
        const int64_t hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
        if (iv < lo || iv > hi) {
            return where() + ": " + std::to_string(iv) + " is out of range [" +
                   std::to_string(lo) + ", " + std::to_string(hi) + "]";
        }
    } else {
        const uint64_t hi = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
        if (iv < 0 || static_cast<uint64_t>(iv) > hi) {
            return where() + ": " + std::to_string(iv) + " is out of range [0, " +
                   std::to_string(hi) + "]";
        }
    }
    const uint64_t u = static_cast<uint64_t>(iv);
    std::memcpy(dst, &u, static_cast<size_t>(r.bytes));  // little-endian, as the kernel reads it
    return "";
}

}  // namespace detail

// The values the policy computes from the shapes: every field it fills by name except attrs.
struct Policy {
    ElementwisePlan plan;
    int64_t rows, cols, rank;
};

// Fills every field of the tiling struct by name (opgen_runtime.tiling.default_tiling followed
// by TilingLayout.pack). `out` must hold `struct_size` bytes; it is zeroed first. Returns "" and
// sets *block_dim, or returns the error (the same wording as the Python TilingError).
inline std::string DefaultTiling(const char* struct_name, const FieldDesc* fields, int nfields,
                                 size_t struct_size, const TensorArg* tensors, int ntensors,
                                 const AttrArg* attrs, int nattrs, const SocProfile& soc,
                                 int64_t forced_block_dim, uint8_t* out, int64_t* block_dim) {
    std::memset(out, 0, struct_size);
    int first_out = -1, first_in = -1;
    int64_t sizes[64];
    int nsizes = 0;
    for (int t = 0; t < ntensors; ++t) {
        const TensorArg& a = tensors[t];
        if (!a.is_input && first_out < 0) first_out = t;
        if (a.is_input && a.present && first_in < 0) first_in = t;
    }
    if (first_out < 0) return "default tiling needs at least one output";
    // present inputs, then outputs: the order of `present` in tiling.py (only min/max/sum matter)
    for (int t = 0; t < ntensors && nsizes < 64; ++t) {
        if (tensors[t].present || !tensors[t].is_input) sizes[nsizes++] = tensors[t].itemsize;
    }
    int64_t total = 1;
    for (int32_t k = 0; k < tensors[first_out].rank; ++k) total *= tensors[first_out].dims[k];
    Policy p;
    p.plan = PlanElementwise(sizes, nsizes, total, soc, forced_block_dim);
    const TensorArg& in = tensors[first_in >= 0 ? first_in : first_out];
    p.rank = in.rank;
    p.cols = in.rank > 0 ? in.dims[in.rank - 1] : 1;
    p.rows = 1;
    for (int32_t k = 0; k + 1 < in.rank; ++k) p.rows *= in.dims[k];

    for (int fi = 0; fi < nfields; ++fi) {
        const FieldDesc& f = fields[fi];
        Value v;
        bool found = true;
        bool is_shape;
        const char* n = f.name;
        if (!std::strcmp(n, "totalLength")) v = Value::Int(p.plan.total_length);
        else if (!std::strcmp(n, "blockLength")) v = Value::Int(p.plan.block_length);
        else if (!std::strcmp(n, "tileNum")) v = Value::Int(p.plan.tile_num);
        else if (!std::strcmp(n, "tileLength")) v = Value::Int(p.plan.tile_length);
        else if (!std::strcmp(n, "tailLength")) v = Value::Int(p.plan.tail_length);
        else if (!std::strcmp(n, "blockDim")) v = Value::Int(p.plan.block_dim);
        else if (!std::strcmp(n, "rows") || !std::strcmp(n, "outerSize")) v = Value::Int(p.rows);
        else if (!std::strcmp(n, "cols") || !std::strcmp(n, "axisSize")) v = Value::Int(p.cols);
        else if (!std::strcmp(n, "rank")) v = Value::Int(p.rank);
        else found = false;
        // The last tensor or attr of a name wins, as in default_tiling's dicts.
        for (int t = ntensors - 1; !found && t >= 0; --t) {
            const TensorArg& a = tensors[t];
            const int32_t rank = a.present ? a.rank : 0;
            if (detail::EndsWithName(n, a.camel, "Shape")) {
                v = Value::Ints(a.dims, rank);
                found = true;
            } else if (detail::EndsWithName(n, a.camel, "Rank")) {
                v = Value::Int(rank);
                found = true;
            } else if (a.is_input && detail::EndsWithName(n, a.camel, "Present")) {
                v = Value::Bool(a.present);
                found = true;
            }
        }
        for (int k = nattrs - 1; !found && k >= 0; --k) {
            if (!std::strcmp(n, attrs[k].name) || !std::strcmp(n, attrs[k].camel)) {
                v = attrs[k].value;
                found = true;
            }
        }
        if (!found) {
            return std::string("tiling struct ") + struct_name +
                   ": the default tiling cannot fill field '" + n +
                   "' (it is no policy field, no <tensor>Shape/Rank/Present and no attr); add a "
                   "tiling hook (spec key `tiling_hook`) that computes it";
        }
        const size_t nlen = std::strlen(n);
        is_shape = nlen >= 5 && std::strcmp(n + nlen - 5, "Shape") == 0;  // padded with 1s
        uint8_t* dst = out + f.offset;
        if (f.array_len < 0) {
            if (v.is_list()) {
                return std::string("tiling struct ") + struct_name + ": field '" + n + "' (" +
                       f.ctype_name + "): cannot convert a list";
            }
            std::string err = detail::Store(struct_name, f, v, dst);
            if (!err.empty()) return err;
            continue;
        }
        const int32_t count = v.size();
        if (is_shape && count > f.array_len) {
            return std::string("tiling struct ") + struct_name + ": '" + n + "[" +
                   std::to_string(f.array_len) + "]' cannot hold a rank-" +
                   std::to_string(count) + " shape";
        }
        if (count > f.array_len) {
            return std::string("tiling struct ") + struct_name + ": field '" + n + "[" +
                   std::to_string(f.array_len) + "]' cannot hold " + std::to_string(count) +
                   " values";
        }
        const int size = detail::SizeOf(f.ctype);
        for (int32_t k = 0; k < f.array_len; ++k) {
            Value item;
            if (k < count) item = v.At(k);
            else if (is_shape) item = Value::Int(kShapePad);
            else break;
            std::string err = detail::Store(struct_name, f, item, dst + k * size);
            if (!err.empty()) return err;
        }
    }
    *block_dim = p.plan.block_dim;
    return "";
}

// -- gathering a framework's tensors and attrs ------------------------------------------------
inline constexpr int32_t kMaxRank = 32;  // the most dims PolicyArgs holds (gert::Shape has 25)

// DefaultTiling's tensors and attrs, added one by one from a framework's own objects (the CANN
// host tiling adds them from its gert::TilingContext), holding the dims its TensorArgs point at.
// kTensors and kAttrs are how many will be added.
template <int kTensors, int kAttrs>
class PolicyArgs {
public:
    // An input or output, inputs first, in the op's order. `shape`: anything with GetDimNum() and
    // GetDim(i), such as gert::Shape, or nullptr for an absent optional input; `itemsize`: the
    // size of its dtype. A tensor the policy cannot take makes Fill fail with the reason.
    template <typename Shape>
    void AddTensor(const char* camel, bool is_input, const Shape* shape, int64_t itemsize) {
        if (n_tensors_ == kTensors) return Fail(std::string("no room for tensor '") + camel + "'");
        int64_t* dims = dims_[n_tensors_];
        tensors_[n_tensors_++] = TensorArg{camel, is_input, shape != nullptr, itemsize, dims, 0};
        if (shape == nullptr) {
            if (!is_input) Fail(std::string("output '") + camel + "' has no shape");
            return;
        }
        if (itemsize <= 0) return Fail(std::string("the dtype of '") + camel + "' has no size");
        const int64_t rank = static_cast<int64_t>(shape->GetDimNum());
        if (rank > kMaxRank) {
            return Fail(std::string("'") + camel + "' has rank " + std::to_string(rank) +
                        ", above " + std::to_string(kMaxRank));
        }
        for (int64_t k = 0; k < rank; ++k) dims[k] = shape->GetDim(static_cast<size_t>(k));
        tensors_[n_tensors_ - 1].rank = static_cast<int32_t>(rank);
    }

    // An attr, under its snake_case and lowerCamelCase names; a dtype attr is its ge::DataType
    // code. `value` nullptr (the framework holds none) offers nothing: a field that names the
    // attr then fails as one no rule fills.
    void AddAttr(const char* name, const char* camel, const int64_t* value) {
        if (value != nullptr) Offer(name, camel, Value::Int(*value));
    }
    void AddAttr(const char* name, const char* camel, const float* value) {
        if (value != nullptr) Offer(name, camel, Value::Float(static_cast<double>(*value)));
    }
    void AddAttr(const char* name, const char* camel, const bool* value) {
        if (value != nullptr) Offer(name, camel, Value::Bool(*value));
    }

    // DefaultTiling over what was added, with the policy's blockDim; "" or the error.
    std::string Fill(const char* struct_name, const FieldDesc* fields, int nfields,
                     size_t struct_size, const SocProfile& soc, uint8_t* out,
                     int64_t* block_dim) const {
        if (!error_.empty()) return std::string("tiling struct ") + struct_name + ": " + error_;
        return DefaultTiling(struct_name, fields, nfields, struct_size, tensors_, n_tensors_,
                             attrs_, n_attrs_, soc, kAutoBlockDim, out, block_dim);
    }

private:
    void Fail(const std::string& error) {
        if (error_.empty()) error_ = error;
    }
    void Offer(const char* name, const char* camel, const Value& value) {
        if (n_attrs_ == kAttrs) return Fail(std::string("no room for attr '") + name + "'");
        attrs_[n_attrs_++] = AttrArg{name, camel, value};
    }

    TensorArg tensors_[kTensors > 0 ? kTensors : 1] = {};
    int64_t dims_[kTensors > 0 ? kTensors : 1][kMaxRank] = {};
    AttrArg attrs_[kAttrs > 0 ? kAttrs : 1] = {};
    int n_tensors_ = 0;
    int n_attrs_ = 0;
    std::string error_;
};

}  // namespace opgen_host

#endif  // OPGEN_HOST_TILING_POLICY_H
