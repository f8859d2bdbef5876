// opgen NPU simulator: helpers that every kernel unit calls and none needs its own copy of.
// Marked OPGEN_SIM_OUTLINE, with their bodies under `#if OPGEN_SIM_OUTLINE_BODIES`. In a kernel
// unit that links the shared runtime object (OPGEN_SIM_EXTERN_RUNTIME) they are declarations
// only and the runtime object's unit (OPGEN_SIM_RUNTIME_UNIT) defines them, once per library:
// g++ then spends none of each kernel's compile on them. Everywhere else (a kernel compiled
// whole, a CPU-debug program's own build) they are ordinary inline functions.
#pragma once

#if defined(OPGEN_SIM_EXTERN_RUNTIME) || defined(OPGEN_SIM_RUNTIME_UNIT)
#define OPGEN_SIM_OUTLINE
#else
#define OPGEN_SIM_OUTLINE inline
#endif

#if defined(OPGEN_SIM_EXTERN_RUNTIME)
#define OPGEN_SIM_OUTLINE_BODIES 0
#else
#define OPGEN_SIM_OUTLINE_BODIES 1
#endif

// A kernel unit that links the runtime object: the runtime's own machinery (the block runner
// and thread pool of launch.h, the raw-pointer scan of raw_gm_scan.h), which no kernel calls,
// is left out of it, not only its code: g++ instantiates at the end of every unit the templates
// an inline function's body names, used or not (about 0.1 s of each kernel's compile).
#if defined(OPGEN_SIM_EXTERN_RUNTIME) && !defined(OPGEN_SIM_RUNTIME_UNIT)
#define OPGEN_SIM_KERNEL_UNIT 1
#else
#define OPGEN_SIM_KERNEL_UNIT 0
#endif

// The vector and copy APIs that opgen_sim/instances.h lists: function templates that are not
// inline, so that a kernel unit's `extern template` declarations of them hold (g++ instantiates
// an inline function template for inlining whatever an explicit instantiation declaration says).
// A template needs no `inline` to be defined in a header; a whole build instantiates them as
// before.
#define OPGEN_SIM_API
