// opgen kernel frontend stub for CANN's tiling-key header (see opgen_frontend_stub.h). The
// frontend reads declarations only; the ASCENDC_TPL_* tables matter to the kernel build
// (runtime/include/ascendc/host_api/tiling/template_argument.h), so here they expand to nothing.
#pragma once
#include "opgen_frontend_stub.h"

#define ASCENDC_TPL_ARGS_DECL(...)
#define ASCENDC_TPL_SEL(...)
#define GET_TPL_TILING_KEY(...) 0ULL
#define ASCENDC_TPL_SEL_PARAM(...)
template <int dataTypeId>
struct TypeFromId {
    using type = void;
};
