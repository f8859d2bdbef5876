// opgen NPU simulator: the vector and copy APIs compiled once per dtype instead of in every kernel.
//
// Most of a kernel unit's compile time is g++ generating the simulator's instruction loops for
// the APIs the kernel calls (Add<float>, DataCopyPad<half>, Cast<float, half>, ...), the same
// code in every kernel that calls them. The instances listed here are compiled once, into the
// simulator's instance objects (an archive beside the runtime object, cached and prebuilt like
// it), and a kernel unit compiled with the precompiled header declares them `extern template`
// (opgen_sim/extern_instances.h): it calls them instead of instantiating them, and the linker
// takes each from the archive. An API or dtype not listed is instantiated in the kernel unit as
// before. The listed templates are OPGEN_SIM_API (not inline: outline.h says why).
//
// OPGEN_SIM_INSTANCES(X) calls X(type) for every dtype the instance objects are built for;
// OPGEN_SIM_INSTANCES_OF(I, T) calls I(declaration) for every API instance of dtype T, and
// OPGEN_SIM_CAST_INSTANCES(I) for the Casts. I is variadic: a declaration's commas are its own.
#pragma once

#define OPGEN_SIM_INSTANCE_DTYPES(X) X(half) X(float) X(int16_t) X(int32_t)

// every dtype: the element-wise arithmetic, Duplicate and the copies
#define OPGEN_SIM_INSTANCES_OF(I, T)                                                           \
    OPGEN_SIM_BINARY_INSTANCE(I, Add, T)                                                       \
    OPGEN_SIM_BINARY_INSTANCE(I, Sub, T)                                                       \
    OPGEN_SIM_BINARY_INSTANCE(I, Mul, T)                                                       \
    OPGEN_SIM_BINARY_INSTANCE(I, Max, T)                                                       \
    OPGEN_SIM_BINARY_INSTANCE(I, Min, T)                                                       \
    OPGEN_SIM_SCALAR_INSTANCE(I, Adds, T)                                                      \
    OPGEN_SIM_SCALAR_INSTANCE(I, Muls, T)                                                      \
    OPGEN_SIM_SCALAR_INSTANCE(I, Maxs, T)                                                      \
    OPGEN_SIM_SCALAR_INSTANCE(I, Mins, T)                                                      \
    OPGEN_SIM_SCALAR_INSTANCE(I, LeakyRelu, T)                                                 \
    OPGEN_SIM_UNARY_INSTANCE(I, Abs, T)                                                        \
    OPGEN_SIM_UNARY_INSTANCE(I, Relu, T)                                                       \
    I(void AscendC::Duplicate<T>(const AscendC::LocalTensor<T>&,                               \
                                 const typename opgen_sim::Id<T>::type&, const int32_t&))      \
    I(void AscendC::DataCopy<T>(const AscendC::LocalTensor<T>&, const AscendC::GlobalTensor<T>&, \
                                const uint32_t))                                               \
    I(void AscendC::DataCopy<T>(const AscendC::GlobalTensor<T>&, const AscendC::LocalTensor<T>&, \
                                const uint32_t))                                               \
    I(void AscendC::DataCopy<T>(const AscendC::LocalTensor<T>&, const AscendC::LocalTensor<T>&, \
                                const uint32_t))                                               \
    I(void AscendC::DataCopy<T>(const AscendC::LocalTensor<T>&, const AscendC::GlobalTensor<T>&, \
                                const AscendC::DataCopyParams&))                               \
    I(void AscendC::DataCopy<T>(const AscendC::GlobalTensor<T>&, const AscendC::LocalTensor<T>&, \
                                const AscendC::DataCopyParams&))                               \
    I(void AscendC::DataCopyPad<T, AscendC::PaddingMode::Normal>(                              \
        const AscendC::LocalTensor<T>&, const AscendC::GlobalTensor<T>&,                       \
        const AscendC::DataCopyExtParams&, const AscendC::DataCopyPadExtParams<T>&))           \
    I(void AscendC::DataCopyPad<T, AscendC::PaddingMode::Normal>(                              \
        const AscendC::GlobalTensor<T>&, const AscendC::LocalTensor<T>&,                       \
        const AscendC::DataCopyExtParams&))

// half and float only: what the simulated SoCs compute in floating point (the others refuse
// an integer dtype at run time, and are left to the kernel unit)
#define OPGEN_SIM_FLOAT_INSTANCES_OF(I, T)                                                     \
    OPGEN_SIM_BINARY_INSTANCE(I, Div, T)                                                       \
    OPGEN_SIM_UNARY_INSTANCE(I, Exp, T)                                                        \
    OPGEN_SIM_UNARY_INSTANCE(I, Ln, T)                                                         \
    OPGEN_SIM_UNARY_INSTANCE(I, Sqrt, T)                                                       \
    OPGEN_SIM_UNARY_INSTANCE(I, Rsqrt, T)                                                      \
    OPGEN_SIM_UNARY_INSTANCE(I, Reciprocal, T)                                                 \
    I(void AscendC::ReduceSum<T, true>(const AscendC::LocalTensor<T>&,                         \
                                       const AscendC::LocalTensor<T>&,                         \
                                       const AscendC::LocalTensor<T>&, const int32_t))         \
    I(void AscendC::ReduceMax<T>(const AscendC::LocalTensor<T>&, const AscendC::LocalTensor<T>&, \
                                 const AscendC::LocalTensor<T>&, const int32_t, bool))         \
    I(void AscendC::ReduceMin<T>(const AscendC::LocalTensor<T>&, const AscendC::LocalTensor<T>&, \
                                 const AscendC::LocalTensor<T>&, const int32_t, bool))

#define OPGEN_SIM_CAST_INSTANCE(I, D, S)                                                       \
    I(void AscendC::Cast<D, S>(const AscendC::LocalTensor<D>&, const AscendC::LocalTensor<S>&, \
                               const AscendC::RoundMode&, const uint32_t))
// the conversions between the instance dtypes, each in the object of its destination dtype
#define OPGEN_SIM_CAST_INSTANCES_TO(I, D)                                                      \
    OPGEN_SIM_CAST_INSTANCES_TO_##D(I)
#define OPGEN_SIM_CAST_INSTANCES_TO_half(I)                                                    \
    OPGEN_SIM_CAST_INSTANCE(I, half, float)                                                    \
    OPGEN_SIM_CAST_INSTANCE(I, half, int16_t)                                                  \
    OPGEN_SIM_CAST_INSTANCE(I, half, int32_t)
#define OPGEN_SIM_CAST_INSTANCES_TO_float(I)                                                   \
    OPGEN_SIM_CAST_INSTANCE(I, float, half)                                                    \
    OPGEN_SIM_CAST_INSTANCE(I, float, int16_t)                                                 \
    OPGEN_SIM_CAST_INSTANCE(I, float, int32_t)
#define OPGEN_SIM_CAST_INSTANCES_TO_int16_t(I)                                                 \
    OPGEN_SIM_CAST_INSTANCE(I, int16_t, half)                                                  \
    OPGEN_SIM_CAST_INSTANCE(I, int16_t, float)
#define OPGEN_SIM_CAST_INSTANCES_TO_int32_t(I)                                                 \
    OPGEN_SIM_CAST_INSTANCE(I, int32_t, half)                                                  \
    OPGEN_SIM_CAST_INSTANCE(I, int32_t, float)

// each element-wise API in its count form and its two mask/repeat forms (a bit mask, a
// continuous count; CANN's level-0 calls, isSetMask true)
#define OPGEN_SIM_BINARY_INSTANCE(I, NAME, T)                                                  \
    I(void AscendC::NAME<T>(const AscendC::LocalTensor<T>&, const AscendC::LocalTensor<T>&,    \
                            const AscendC::LocalTensor<T>&, const int32_t&))                   \
    I(void AscendC::NAME<T, true>(const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&, const uint64_t[],            \
                                  const uint8_t, const AscendC::BinaryRepeatParams&))          \
    I(void AscendC::NAME<T, true>(const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&, uint64_t, const uint8_t,     \
                                  const AscendC::BinaryRepeatParams&))
#define OPGEN_SIM_SCALAR_INSTANCE(I, NAME, T)                                                  \
    I(void AscendC::NAME<T>(const AscendC::LocalTensor<T>&, const AscendC::LocalTensor<T>&,    \
                            const typename opgen_sim::Id<T>::type&, const int32_t&))           \
    I(void AscendC::NAME<T, true>(const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&,                              \
                                  const typename opgen_sim::Id<T>::type&, const uint64_t[],    \
                                  const uint8_t, const AscendC::UnaryRepeatParams&))           \
    I(void AscendC::NAME<T, true>(const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&,                              \
                                  const typename opgen_sim::Id<T>::type&, uint64_t,            \
                                  const uint8_t, const AscendC::UnaryRepeatParams&))
#define OPGEN_SIM_UNARY_INSTANCE(I, NAME, T)                                                   \
    I(void AscendC::NAME<T>(const AscendC::LocalTensor<T>&, const AscendC::LocalTensor<T>&,    \
                            const int32_t&))                                                   \
    I(void AscendC::NAME<T, true>(const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&, const uint64_t[],            \
                                  const uint8_t, const AscendC::UnaryRepeatParams&))           \
    I(void AscendC::NAME<T, true>(const AscendC::LocalTensor<T>&,                              \
                                  const AscendC::LocalTensor<T>&, uint64_t, const uint8_t,     \
                                  const AscendC::UnaryRepeatParams&))

// Every instance of dtype T: what one instance object defines.
#define OPGEN_SIM_ALL_INSTANCES_OF(I, T)                                                       \
    OPGEN_SIM_INSTANCES_OF(I, T)                                                               \
    OPGEN_SIM_INSTANCES_FLOAT_PART_##T(I)                                                      \
    OPGEN_SIM_CAST_INSTANCES_TO(I, T)
#define OPGEN_SIM_INSTANCES_FLOAT_PART_half(I) OPGEN_SIM_FLOAT_INSTANCES_OF(I, half)
#define OPGEN_SIM_INSTANCES_FLOAT_PART_float(I) OPGEN_SIM_FLOAT_INSTANCES_OF(I, float)
#define OPGEN_SIM_INSTANCES_FLOAT_PART_int16_t(I)
#define OPGEN_SIM_INSTANCES_FLOAT_PART_int32_t(I)
