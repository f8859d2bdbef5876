// opgen: CANN's templated tiling key (the ASCENDC_TPL_* macros and GET_TPL_TILING_KEY), one
// implementation for both halves of an op. An op's tiling-key header (op_kernel/tiling_key_*.h)
// declares the kernel's template parameters (ASCENDC_TPL_ARGS_DECL) and the combinations it is
// built for (ASCENDC_TPL_SEL). Both expand to constexpr tables here, so:
//   - the op_host's GET_TPL_TILING_KEY(v0, v1, ...) packs the values with `EncodeKey`;
//   - the kernel build (opgen_sim/tpl_dispatch.h) enumerates every selected combination at
//     compile time with `ForEachCombination`, keys each instantiation with the same `EncodeKey`
//     and dispatches a launch's tiling key to it.
// The key is CANN's (asc-devkit's template_argument implementation; its docs do not spell the
// packing out): parameters in declaration order from bit 0 up, each in its bit width (DTYPE,
// DATATYPE, FORMAT and KERNEL_TYPE 8 bits, BOOL 1, UINT the declared width); DTYPE/FORMAT/BOOL/
// KERNEL_TYPE values are stored as they are, a UINT value as its position in the declared list
// after ranges are expanded. docs/op-host.md, "Templated tiling keys", has the user's view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "graph/c_types.h"

// Kernel types of ASCENDC_TPL_KERNEL_TYPE_SEL / ASCENDC_TPL_KERNEL_TYPE_DECL (CANN's numbers).
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 4
#define ASCENDC_TPL_MIX_AIC_1_0 5
#define ASCENDC_TPL_MIX_AIC_1_1 6
#define ASCENDC_TPL_MIX_AIC_1_2 7
#define ASCENDC_TPL_AICORE 8
#define ASCENDC_TPL_VECTORCORE 9
#define ASCENDC_TPL_MIX_AICORE 10
#define ASCENDC_TPL_MIX_VECTOR_CORE 11
#define ASCENDC_TPL_MAX 12
// Bit widths a UINT parameter may be declared with.
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
// Parameter kinds.
#define ASCENDC_TPL_DTYPE 0
#define ASCENDC_TPL_FORMAT 1
#define ASCENDC_TPL_UINT 2
#define ASCENDC_TPL_BOOL 3
constexpr uint32_t ASCENDC_TPL_KERNEL_TYPE = 4;
constexpr uint32_t ASCENDC_TPL_DETERMINISTIC = 5;
constexpr uint32_t ASCENDC_TPL_SHARED_KERNEL_TYPE = 6;
// "the dtype/format of input/output x" in a DATATYPE/FORMAT declaration
#define ASCENDC_TPL_INPUT_BIAS 100000000
#define ASCENDC_TPL_OUTPUT_BIAS 900000000
#define ASCENDC_TPL_INPUT(x) (ASCENDC_TPL_INPUT_BIAS + (x))
#define ASCENDC_TPL_OUTPUT(x) (ASCENDC_TPL_OUTPUT_BIAS + (x))
// How a UINT parameter lists its values: ranges, a list, or ranges then a list.
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2
constexpr uint8_t MAX_BITS_NUM = 64;
constexpr uint64_t INVALID_TILING_KEY = 0xFFFFFFFFFFFFFFFFULL;

namespace opgen_tpl {

// Capacities of the constexpr tables (fixed, so a header's tables are literal types C++17 can
// build at compile time). A header past one is a compile error naming the limit.
constexpr size_t kMaxValues = 48;  // numbers written in one ASCENDC_TPL_*_DECL / _SEL
constexpr size_t kMaxParams = 16;  // parameters in ASCENDC_TPL_ARGS_DECL / one ASCENDC_TPL_ARGS_SEL
constexpr size_t kMaxGroups = 32;  // ASCENDC_TPL_ARGS_SEL groups in ASCENDC_TPL_SEL
// Kinds that only exist inside a selection and take no part in the key.
constexpr uint32_t kTilingStruct = 100;
constexpr uint32_t kNoParam = 101;

// Called (at compile time) only when a table breaks a rule: the compiler's error then names
// the rule ("call to non-'constexpr' function ...").
void too_many_values_in_one_ASCENDC_TPL_macro_for_opgen();
void too_many_parameters_in_ASCENDC_TPL_ARGS_for_opgen();
void too_many_ASCENDC_TPL_ARGS_SEL_groups_for_opgen();

constexpr bool SameName(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}

// One ASCENDC_TPL_<KIND>_DECL or _SEL: its name, kind, bit width and the numbers as written.
struct Param {
    const char* name = "";
    uint32_t kind = kNoParam;
    uint32_t bit_width = 0;
    uint64_t raw[kMaxValues] = {};
    size_t raw_count = 0;
    bool is_datatype = false;  // ASCENDC_TPL_DATATYPE_*: the kernel receives a C++ type

    constexpr Param() = default;
    template <size_t N>
    constexpr Param(const char* n, uint32_t k, uint32_t bw, const uint64_t (&values)[N],
                    bool datatype = false)
        : name(n), kind(k), bit_width(bw), raw_count(N), is_datatype(datatype) {
        if (N > kMaxValues) too_many_values_in_one_ASCENDC_TPL_macro_for_opgen();
        for (size_t i = 0; i < N; ++i) raw[i] = values[i];
    }
    constexpr Param(const char* n, uint32_t k) : name(n), kind(k) {}

    // Whether the parameter is part of the key (and a template argument of the kernel).
    constexpr bool Keyed() const {
        return kind <= ASCENDC_TPL_BOOL || kind == ASCENDC_TPL_SHARED_KERNEL_TYPE;
    }

    // The values in their declared order, a UINT's ranges expanded: Count() of them, At(i).
    constexpr size_t Count() const { return Walk(static_cast<size_t>(-1), nullptr); }
    constexpr uint64_t At(size_t i) const {
        uint64_t v = 0;
        Walk(i, &v);
        return v;
    }
    // Position of v among the values, Count() when absent.
    constexpr size_t IndexOf(uint64_t v) const {
        const size_t n = Count();
        for (size_t i = 0; i < n; ++i) {
            if (At(i) == v) return i;
        }
        return n;
    }

  private:
    // Walks the values; stores the one at `want` in *out. Returns how many there are.
    constexpr size_t Walk(size_t want, uint64_t* out) const {
        size_t n = 0;
        auto emit = [&](uint64_t v) {
            if (n == want) *out = v;
            ++n;
        };
        if (kind != ASCENDC_TPL_UINT) {
            for (size_t i = 0; i < raw_count; ++i) emit(raw[i]);
            return n;
        }
        if (raw_count == 0) return 0;
        const uint64_t mode = raw[0];
        size_t next = 1;
        if (mode == ASCENDC_TPL_UI_RANGE || mode == ASCENDC_TPL_UI_MIX) {
            const uint64_t ranges = raw_count > 1 ? raw[1] : 0;
            next = 2;
            for (uint64_t r = 0; r < ranges && next + 1 < raw_count; ++r, next += 2) {
                for (uint64_t v = raw[next]; v <= raw[next + 1]; ++v) emit(v);
            }
            if (mode == ASCENDC_TPL_UI_RANGE) return n;
        } else if (mode != ASCENDC_TPL_UI_LIST) {
            return 0;
        }
        for (size_t i = next; i < raw_count; ++i) emit(raw[i]);
        return n;
    }
};

// Parameters of ASCENDC_TPL_ARGS_DECL, or of one ASCENDC_TPL_ARGS_SEL group.
struct ParamList {
    Param params[kMaxParams] = {};
    size_t count = 0;

    constexpr ParamList() = default;
    template <class... P>
    constexpr explicit ParamList(const P&... ps) {
        const Param all[] = {Param(), ps...};
        for (size_t i = 1; i < sizeof...(P) + 1; ++i) {
            if (all[i].kind == kNoParam) continue;
            if (count == kMaxParams) too_many_parameters_in_ASCENDC_TPL_ARGS_for_opgen();
            params[count++] = all[i];
        }
    }
    // The parameter called `name`, or nullptr.
    constexpr const Param* Find(const char* name) const {
        for (size_t i = 0; i < count; ++i) {
            if (SameName(params[i].name, name)) return &params[i];
        }
        return nullptr;
    }
};

// ASCENDC_TPL_ARGS_DECL(op, ...): the op's name and its key parameters, in key order.
struct Declaration {
    const char* op = "";
    ParamList args;

    template <class... P>
    constexpr explicit Declaration(const char* name, const P&... ps) : op(name), args(ps...) {}
};

// ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(...), ...): the combinations the kernel is built for.
struct Selection {
    ParamList groups[kMaxGroups] = {};
    size_t count = 0;

    template <class... G>
    constexpr explicit Selection(const G&... gs) {
        const ParamList all[] = {ParamList(), gs...};
        for (size_t i = 1; i < sizeof...(G) + 1; ++i) {
            if (count == kMaxGroups) too_many_ASCENDC_TPL_ARGS_SEL_groups_for_opgen();
            groups[count++] = all[i];
        }
    }
};

// GET_TPL_TILING_KEY: `values` in declaration order. INVALID_TILING_KEY (with CANN's message on
// stdout) when a UINT value is not declared or the widths pass 64 bits.
constexpr uint64_t EncodeKey(const Declaration& decl, const uint64_t* values, size_t count,
                             bool report = false) {
    uint64_t key = 0;
    uint32_t bits = 0;
    const size_t n = decl.args.count < count ? decl.args.count : count;
    for (size_t i = 0; i < n; ++i) {
        const Param& p = decl.args.params[i];
        uint64_t field = values[i];
        if (p.kind == ASCENDC_TPL_UINT) {
            const size_t at = p.IndexOf(field);
            if (at == p.Count()) {
                if (report) {
                    std::printf("[ERROR] ASCENDC_TPL_UINT_SEL %s value %llu does not exist in "
                                "ASCENDC_TPL_UINT_DECL, please check it!\n",
                                p.name, static_cast<unsigned long long>(field));
                }
                return INVALID_TILING_KEY;
            }
            field = at;
        }
        if (bits < 64) key |= field << bits;
        bits += p.bit_width;
    }
    if (bits > MAX_BITS_NUM) {
        if (report) {
            std::printf("[ERROR] Tiling key bits %u exceed max bits %u, please check it!\n", bits,
                        static_cast<unsigned>(MAX_BITS_NUM));
        }
        return INVALID_TILING_KEY;
    }
    return key;
}

inline uint64_t EncodeKey(const Declaration& decl, std::initializer_list<uint64_t> values) {
    return EncodeKey(decl, values.begin(), values.size(), true);
}

// The value of parameter i that `key` holds; false when the field is no declared value.
constexpr bool DecodeField(const Declaration& decl, uint64_t key, size_t i, uint64_t* value) {
    uint32_t shift = 0;
    for (size_t j = 0; j < i; ++j) shift += decl.args.params[j].bit_width;
    const Param& p = decl.args.params[i];
    const uint64_t mask = p.bit_width >= 64 ? ~0ULL : ((1ULL << p.bit_width) - 1);
    const uint64_t field = shift < 64 ? (key >> shift) & mask : 0;
    if (p.kind != ASCENDC_TPL_UINT) {
        *value = field;
        return true;
    }
    if (field >= p.Count()) {
        *value = field;
        return false;
    }
    *value = p.At(field);
    return true;
}

// A selected combination: one value per declared parameter, in declaration order.
struct Combination {
    uint64_t values[kMaxParams] = {};
    uint64_t key = 0;
};

// What breaks CANN's rules for these headers (its build refuses them too); kernel builds
// static_assert each one with its sentence (opgen_sim/tpl_dispatch.h).
enum class Problem {
    kNone,
    kNoValues,           // an ASCENDC_TPL_*_DECL declares no value
    kDuplicateValue,     // an ASCENDC_TPL_*_DECL declares a value twice
    kBiasedValue,        // ASCENDC_TPL_INPUT/ASCENDC_TPL_OUTPUT in a declaration
    kValueTooWide,       // a DTYPE/FORMAT/BOOL value past its bit width
    kUintTooMany,        // more UINT values than its bit width numbers
    kTooManyBits,        // the widths add up to more than 64
    kMissingInGroup,     // an ASCENDC_TPL_ARGS_SEL group lacks a declared parameter
    kKindMismatch,       // a parameter's kind differs between SEL and DECL
    kUndeclaredValue,    // a selected value is not declared
    kUndeclaredName,     // a selected parameter is not declared
    kEmptySelection,     // ASCENDC_TPL_SEL selects nothing
};

constexpr Problem DeclarationProblem(const Declaration& decl) {
    uint32_t bits = 0;
    for (size_t i = 0; i < decl.args.count; ++i) {
        const Param& p = decl.args.params[i];
        bits += p.bit_width;
        const size_t n = p.Count();
        if (n == 0) return Problem::kNoValues;
        for (size_t a = 0; a < n; ++a) {
            for (size_t b = a + 1; b < n; ++b) {
                if (p.At(a) == p.At(b)) return Problem::kDuplicateValue;
            }
            const uint64_t v = p.At(a);
            if (p.kind == ASCENDC_TPL_UINT) continue;
            if (v >= ASCENDC_TPL_INPUT_BIAS) return Problem::kBiasedValue;
            if (p.bit_width < 64 && v >= (1ULL << p.bit_width)) return Problem::kValueTooWide;
        }
        if (p.kind == ASCENDC_TPL_UINT && p.bit_width < 64 && n > (1ULL << p.bit_width)) {
            return Problem::kUintTooMany;
        }
    }
    return bits > MAX_BITS_NUM ? Problem::kTooManyBits : Problem::kNone;
}

constexpr Problem GroupProblem(const Declaration& decl, const ParamList& group) {
    for (size_t i = 0; i < decl.args.count; ++i) {
        const Param& d = decl.args.params[i];
        const Param* s = group.Find(d.name);
        if (s == nullptr) return Problem::kMissingInGroup;
        if (s->kind != d.kind) return Problem::kKindMismatch;
        for (size_t j = 0; j < s->Count(); ++j) {
            if (d.IndexOf(s->At(j)) == d.Count()) return Problem::kUndeclaredValue;
        }
    }
    for (size_t j = 0; j < group.count; ++j) {
        const Param& s = group.params[j];
        if (s.Keyed() && decl.args.Find(s.name) == nullptr) return Problem::kUndeclaredName;
    }
    return Problem::kNone;
}

constexpr Problem SelectionProblem(const Declaration& decl, const Selection& sel) {
    const Problem d = DeclarationProblem(decl);
    if (d != Problem::kNone) return d;
    if (sel.count == 0) return Problem::kEmptySelection;
    for (size_t g = 0; g < sel.count; ++g) {
        const Problem p = GroupProblem(decl, sel.groups[g]);
        if (p != Problem::kNone) return p;
    }
    return Problem::kNone;
}

constexpr size_t GroupSize(const Declaration& decl, const ParamList& group) {
    size_t n = 1;
    for (size_t i = 0; i < decl.args.count; ++i) n *= group.Find(decl.args.params[i].name)->Count();
    return n;
}

// Calls fn(combination) for every selected combination, groups in order, the last declared
// parameter varying fastest. Returns how many there were.
template <class Fn>
constexpr size_t ForEachCombination(const Declaration& decl, const Selection& sel, Fn fn) {
    size_t total = 0;
    for (size_t g = 0; g < sel.count; ++g) {
        const ParamList& group = sel.groups[g];
        const size_t n = GroupSize(decl, group);
        for (size_t c = 0; c < n; ++c) {
            Combination combo;
            size_t rest = c;
            for (size_t i = decl.args.count; i-- > 0;) {
                const Param& s = *group.Find(decl.args.params[i].name);
                combo.values[i] = s.At(rest % s.Count());
                rest /= s.Count();
            }
            combo.key = EncodeKey(decl, combo.values, decl.args.count);
            fn(combo);
            ++total;
        }
    }
    return total;
}

}  // namespace opgen_tpl

#define ASCENDC_TPL_DTYPE_DECL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__}, true)
#define ASCENDC_TPL_FORMAT_DECL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) ::opgen_tpl::Param(#x, ASCENDC_TPL_UINT, bw, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_DECL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__})
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_SHARED_KERNEL_TYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})

#define ASCENDC_TPL_DTYPE_SEL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__}, true)
#define ASCENDC_TPL_FORMAT_SEL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_SEL(x, ...) ::opgen_tpl::Param(#x, ASCENDC_TPL_UINT, 0, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_SEL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__})
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(x, ...) \
    ::opgen_tpl::Param(#x, ASCENDC_TPL_SHARED_KERNEL_TYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
// Selection-only settings: recorded, not part of the key (the simulator runs every kernel type
// on its vector cores; a per-combination tiling struct is the kernel's GET_TILING_DATA's).
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) \
    ::opgen_tpl::Param("kernel_type", ASCENDC_TPL_KERNEL_TYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DETERMINISTIC_SEL(...) \
    ::opgen_tpl::Param("deterministic", ASCENDC_TPL_DETERMINISTIC, ASCENDC_TPL_1_BW, {__VA_ARGS__})
#define ASCENDC_TPL_TILING_STRUCT_SEL(x, ...) ::opgen_tpl::Param(#x, ::opgen_tpl::kTilingStruct)

#define ASCENDC_TPL_ARGS_DECL(x, ...) \
    static constexpr ::opgen_tpl::Declaration g_tilingDeclareParams{#x, __VA_ARGS__}
#define ASCENDC_TPL_ARGS_SEL(...) ::opgen_tpl::ParamList{__VA_ARGS__}
#if !defined(OPGEN_OP_HOST)
#define ASCENDC_TPL_SEL(...) static constexpr ::opgen_tpl::Selection g_tilingSelectParams{__VA_ARGS__}
#else
// The op_host: CANN's host build (template_argument.h without ASCENDC_DEBUG) expands
// ASCENDC_TPL_SEL to nothing, as GET_TPL_TILING_KEY encodes from the declaration alone; so the
// selection lists are never compiled there, and may name what only the kernel's build knows
// (ops-nn's clipped_swiglu selects an undefined TPL_FLOOR in its Ascend 950 key header)
#define ASCENDC_TPL_SEL(...)
#endif

#define GET_TPL_TILING_KEY(...) ::opgen_tpl::EncodeKey(g_tilingDeclareParams, {__VA_ARGS__})
#define ASCENDC_TPL_SEL_PARAM(context, ...)             \
    do {                                                \
        uint64_t key = GET_TPL_TILING_KEY(__VA_ARGS__); \
        (context)->SetTilingKey(key);                   \
    } while (0)
