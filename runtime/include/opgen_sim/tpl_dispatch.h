// opgen NPU simulator: the launch of a templated kernel entry (CANN's tiling-key templates).
// CANN's build compiles one instantiation of `template<...> __global__ void op(...)` per
// combination that the op's ASCENDC_TPL_SEL selects and runs the one the launch's tiling key
// names. The kernel build does the same in one library: opgen_runtime.build generates an
// extern "C" entry that calls `Launch`, which holds a table (tiling key -> instantiation) built
// at compile time from the header's tables (ascendc/host_api/tiling/template_argument.h).
#pragma once

#include <array>
#include <string>
#include <utility>

#include "../ascendc/host_api/tiling/template_argument.h"
#include "core.h"

// The C++ type of a DATATYPE parameter's value (CANN's kernel-side TypeFromId). The codes are
// named C_DT_*: in a kernel build DT_FLOAT16 is a macro (opgen_sim/dt_macros.h).
template <int dataTypeId>
struct TypeFromId {
    using type = void;
};
#define OPGEN_TPL_TYPE_FROM_ID(id, T) \
    template <>                       \
    struct TypeFromId<id> {           \
        using type = T;               \
    }
OPGEN_TPL_TYPE_FROM_ID(C_DT_FLOAT, float);
OPGEN_TPL_TYPE_FROM_ID(C_DT_FLOAT16, half);
OPGEN_TPL_TYPE_FROM_ID(C_DT_INT8, int8_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_INT32, int32_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_UINT8, uint8_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_INT16, int16_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_UINT16, uint16_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_INT64, int64_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_UINT32, uint32_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_UINT64, uint64_t);
OPGEN_TPL_TYPE_FROM_ID(C_DT_DOUBLE, double);
OPGEN_TPL_TYPE_FROM_ID(C_DT_BOOL, bool);
OPGEN_TPL_TYPE_FROM_ID(C_DT_BF16, bfloat16_t);
#undef OPGEN_TPL_TYPE_FROM_ID

namespace opgen_tpl {

using Run = void (*)(uint8_t** args);

struct Instance {
    uint64_t key;
    Run run;
};

template <const Declaration& D, const Selection& S>
struct Space {
    static constexpr Problem kProblem = SelectionProblem(D, S);
    static_assert(kProblem != Problem::kNoValues, "an ASCENDC_TPL_*_DECL declares no value");
    static_assert(kProblem != Problem::kDuplicateValue,
                  "an ASCENDC_TPL_*_DECL declares a value twice");
    static_assert(kProblem != Problem::kBiasedValue,
                  "ASCENDC_TPL_INPUT/ASCENDC_TPL_OUTPUT in a declaration is not supported by "
                  "opgen: list the data types or formats");
    static_assert(kProblem != Problem::kValueTooWide,
                  "a declared DTYPE/FORMAT/BOOL value does not fit its bit width");
    static_assert(kProblem != Problem::kUintTooMany,
                  "an ASCENDC_TPL_UINT_DECL declares more values than its bit width numbers");
    static_assert(kProblem != Problem::kTooManyBits,
                  "the ASCENDC_TPL_ARGS_DECL bit widths add up to more than 64");
    static_assert(kProblem != Problem::kMissingInGroup,
                  "an ASCENDC_TPL_ARGS_SEL group lacks a parameter of ASCENDC_TPL_ARGS_DECL");
    static_assert(kProblem != Problem::kKindMismatch,
                  "a parameter has another kind in ASCENDC_TPL_SEL than in ASCENDC_TPL_ARGS_DECL");
    static_assert(kProblem != Problem::kUndeclaredValue,
                  "ASCENDC_TPL_SEL selects a value its ASCENDC_TPL_*_DECL does not declare");
    static_assert(kProblem != Problem::kUndeclaredName,
                  "ASCENDC_TPL_SEL names a parameter ASCENDC_TPL_ARGS_DECL does not declare");
    static_assert(kProblem != Problem::kEmptySelection, "ASCENDC_TPL_SEL selects no combination");
    static constexpr bool kValid = kProblem == Problem::kNone;

    static constexpr size_t Total() {
        return kValid ? ForEachCombination(D, S, [](const Combination&) {}) : 0;
    }
    static constexpr size_t kCount = Total();

    static constexpr std::array<Combination, kCount> List() {
        std::array<Combination, kCount> out{};
        size_t n = 0;
        ForEachCombination(D, S, [&](const Combination& c) { out[n++] = c; });
        return out;
    }
    static constexpr std::array<Combination, kCount> kCombos = List();

    static constexpr bool Unique() {
        for (size_t a = 0; a < kCount; ++a) {
            for (size_t b = a + 1; b < kCount; ++b) {
                if (kCombos[a].key == kCombos[b].key) return false;
            }
        }
        return true;
    }
    static_assert(Unique(), "ASCENDC_TPL_SEL selects one combination twice (two groups overlap)");
};

template <class Call, const Declaration& D, const Selection& S, size_t I, size_t... P>
constexpr Instance MakeInstance(std::index_sequence<P...>) {
    return {Space<D, S>::kCombos[I].key,
            &Call::template Run<Space<D, S>::kCombos[I].values[P]...>};
}

template <class Call, const Declaration& D, const Selection& S, size_t... I>
constexpr std::array<Instance, sizeof...(I)> MakeTable(std::index_sequence<I...>) {
    return {{MakeInstance<Call, D, S, I>(std::make_index_sequence<D.args.count>{})...}};
}

// "X=10, Y=15, Z=#9 (not a declared UINT value)" for a key that selects nothing.
inline std::string DescribeKey(const Declaration& decl, uint64_t key) {
    std::string out;
    uint32_t bits = 0;
    for (size_t i = 0; i < decl.args.count; ++i) {
        const Param& p = decl.args.params[i];
        uint64_t v = 0;
        const bool ok = DecodeField(decl, key, i, &v);
        if (!out.empty()) out += ", ";
        out += std::string(p.name) + "=" +
               (ok ? std::to_string(v)
                   : "#" + std::to_string(v) + " (a UINT position past its " +
                         std::to_string(p.Count()) + " declared values)");
        bits += p.bit_width;
    }
    if (bits < 64 && (key >> bits) != 0) {
        out += "; bits above the " + std::to_string(bits) + " the declaration uses are set";
    }
    return out;
}

// Runs the instantiation the launch's tiling key selects; a key that selects none is an error
// naming the entry, the key and its decoded values.
template <class Call, const Declaration& D, const Selection& S>
void Launch(const char* entry, uint8_t** args) {
    using Sp = Space<D, S>;
    static constexpr auto kTable = MakeTable<Call, D, S>(std::make_index_sequence<Sp::kCount>{});
    const uint64_t key = ::opgen_sim::CurrentCore().tiling_key;
    for (const Instance& inst : kTable) {
        if (inst.key == key) {
            inst.run(args);
            return;
        }
    }
    std::string why;
    if (key == INVALID_TILING_KEY) {
        why = " is INVALID_TILING_KEY: the op_host's GET_TPL_TILING_KEY got a value that its "
              "ASCENDC_TPL_*_DECL does not declare (its [ERROR] line names it)";
    } else {
        why = " (" + DescribeKey(D, key) + ") is none of the " + std::to_string(Sp::kCount) +
              " combinations that ASCENDC_TPL_SEL selects for " + D.op;
    }
    ::opgen_sim::Fail(::opgen_sim::ErrorKind::Tiling, "tiling key",
                      std::string(entry) + ": tiling key " + std::to_string(key) + why);
}

}  // namespace opgen_tpl
