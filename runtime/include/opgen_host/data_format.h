// opgen: AscendC::DataFormat (the tensor format tag a LocalTensor's ShapeInfo carries) and
// TransDataConfig (TransData's pair of formats), shared by the kernel (opgen_sim/tensor.h,
// opgen_sim/transdata.h) and the host (tiling/transdata_tiling.h). CANN's guards, so that one
// definition wins when a program also includes CANN's own headers.
#pragma once

#include <cstdint>

namespace AscendC {

#ifndef ASCC_ENUM_DATAFORMAT
#define ASCC_ENUM_DATAFORMAT
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };
#endif

#ifndef ASCC_PARAM_TRANSDATACONFIG
#define ASCC_PARAM_TRANSDATACONFIG
struct TransDataConfig {
    DataFormat srcFormat;
    DataFormat dstFormat;
};
#endif

}  // namespace AscendC
