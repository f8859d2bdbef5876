// opgen kernel frontend stub for <kernel_operator_list_tensor_intf.h> (AscendC::ListTensorDesc,
// which dynamic-input kernels use); see opgen_frontend_stub.h.
#pragma once
#include "opgen_frontend_stub.h"

namespace AscendC {
template <class... T>
struct TensorDesc;
class ListTensorDesc;
}  // namespace AscendC
