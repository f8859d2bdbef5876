// opgen host runtime: GetTransDataMaxMinTmpSize, the host side of TransData (tiling/tiling_api.h
// includes this), with DataFormat and TransDataConfig under CANN's guards (the kernel side,
// opgen_sim/tensor.h and opgen_sim/transdata.h, defines the same ones).
//
// Reference, "GetTransDataMaxMinTmpSize": the sharedTmpBuffer TransData needs for a config and the
// two shapes (the layouts' shapes); the largest equals the smallest. The figures follow
// asc-devkit's host implementation (impl/adv_api/tiling/transpose/transdata_tiling.cpp), in bytes,
// with HWp = H * W rounded up to 16, C1 = ceil(C / 16), N1 = ceil(N / 16):
//   NCDHW -> NDC1HWC0      2 * (D * HWp + D * C1 * 16 * HWp)
//   NDC1HWC0 -> NCDHW      2 * D * C1 * 16 * HWp + 512
//   NCDHW -> FRACTAL_Z_3D  2 * max(C * D * HWp, D * H * W * N1 * 16) + 2 * N1 * 16 * D * C1 * 16 * HWp
//   FRACTAL_Z_3D -> NCDHW  2 * N1 * 16 * C1 * 16 * D * HWp, twice that unless N and C are multiples of 16
// The reference lists half, float, uint16_t and int16_t for dataType; CANN's code takes
// DT_FLOAT16, DT_BF16, DT_UINT16 and DT_INT16 (TransData's kernel types). The simulator takes
// all five (the reference wins for DT_FLOAT; the figures are CANN's, which count 2-byte elements).
// A shape pair that does not match the config (rank, N/D/H/W, C0 = N0 = 16, C1, N1), another
// config, type or npu arch is reported and leaves the outputs as they were; the function returns
// false. The Ascend 950 (DAV_3510, DAV_5102) is not simulated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../graph/tensor.h"
#include "../opgen_host/data_format.h"
#include "math_tmp_size.h"
#include "platform/platform_ascendc.h"

namespace AscendC {

namespace transdata_tiling_detail {

using math_tmp_detail::Report;

inline std::string Text(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

inline int64_t Up(int64_t a, int64_t b) { return (a + b - 1) / b; }

// the shapes against the config; the NCDHW dims in ncdhw; false (reported) when they do not fit
inline bool Match(const char* api, const TransDataConfig& cfg, const std::vector<int64_t>& src,
                  const std::vector<int64_t>& dst, std::vector<int64_t>& ncdhw) {
    const bool fromNcdhw = cfg.srcFormat == DataFormat::NCDHW;
    const bool fz = cfg.srcFormat == DataFormat::FRACTAL_Z_3D || cfg.dstFormat == DataFormat::FRACTAL_Z_3D;
    const std::vector<int64_t>& nc = fromNcdhw ? src : dst;
    const std::vector<int64_t>& ot = fromNcdhw ? dst : src;
    const std::string ncName = fromNcdhw ? "srcShape" : "dstShape";
    const std::string otName = fromNcdhw ? "dstShape" : "srcShape";
    const std::string otFormat = fz ? "FRACTAL_Z_3D" : "NDC1HWC0";
    const size_t rank = fz ? 7 : 6;
    if (nc.size() != 5) {
        Report(api, ncName + " " + Text(nc) + " is not an NCDHW shape: it must have 5 dims");
        return false;
    }
    if (ot.size() != rank) {
        Report(api, otName + " " + Text(ot) + " is not a " + otFormat + " shape: it must have " +
                        std::to_string(rank) + " dims");
        return false;
    }
    for (int64_t v : nc) {
        if (v <= 0) {
            Report(api, ncName + " " + Text(nc) + ": every dim must be positive");
            return false;
        }
    }
    const int64_t n = nc[0], c = nc[1], d = nc[2], h = nc[3], w = nc[4];
    const std::string pair = otName + " " + Text(ot) + " against " + ncName + " " + Text(nc) + ": ";
    std::string error;
    if (!fz) {
        if (ot[0] != n || ot[1] != d || ot[3] != h || ot[4] != w) {
            error = "N, D, H and W must be equal";
        } else if (ot[5] != 16) {
            error = "C0 must be 16";
        } else if (ot[2] != Up(c, 16)) {
            error = "C1 must be (C + 15) / 16 = " + std::to_string(Up(c, 16));
        }
    } else {
        if (ot[0] != d || ot[2] != h || ot[3] != w) {
            error = "D, H and W must be equal";
        } else if (ot[6] != 16 || ot[5] != 16) {
            error = "C0 and N0 must be 16";
        } else if (ot[1] != Up(c, 16)) {
            error = "C1 must be (C + 15) / 16 = " + std::to_string(Up(c, 16));
        } else if (ot[4] != Up(n, 16)) {
            error = "N1 must be (N + 15) / 16 = " + std::to_string(Up(n, 16));
        }
    }
    if (!error.empty()) {
        Report(api, pair + error);
        return false;
    }
    ncdhw = nc;
    return true;
}

}  // namespace transdata_tiling_detail

inline bool GetTransDataMaxMinTmpSize(const platform_ascendc::PlatformAscendC& platform, const ge::Shape& srcShape,
                                      const ge::Shape& dstShape, const ge::DataType dataType,
                                      const TransDataConfig& config, uint32_t& maxValue, uint32_t& minValue) {
    namespace td = transdata_tiling_detail;
    constexpr const char* api = "GetTransDataMaxMinTmpSize";
    if (dataType != ge::DT_FLOAT16 && dataType != ge::DT_BF16 && dataType != ge::DT_UINT16 &&
        dataType != ge::DT_INT16 && dataType != ge::DT_FLOAT) {
        td::Report(api, "dataType " + std::to_string(static_cast<int>(dataType)) +
                            " is not supported: DT_FLOAT16, DT_FLOAT, DT_UINT16 and DT_INT16 (the reference), "
                            "DT_BF16 (TransData's kernel type)");
        return false;
    }
    using DF = DataFormat;
    const DF s = config.srcFormat, d = config.dstFormat;
    const bool to6hd = s == DF::NCDHW && d == DF::NDC1HWC0, from6hd = s == DF::NDC1HWC0 && d == DF::NCDHW;
    const bool toFz = s == DF::NCDHW && d == DF::FRACTAL_Z_3D, fromFz = s == DF::FRACTAL_Z_3D && d == DF::NCDHW;
    if (!(to6hd || from6hd || toFz || fromFz)) {
        td::Report(api, "config (srcFormat " + std::to_string(static_cast<int>(s)) + ", dstFormat " +
                            std::to_string(static_cast<int>(d)) +
                            ") is not supported: (NCDHW, NDC1HWC0), (NDC1HWC0, NCDHW), (NCDHW, FRACTAL_Z_3D) or "
                            "(FRACTAL_Z_3D, NCDHW)");
        return false;
    }
    const NpuArch arch = platform.GetCurNpuArch();
    if (arch != NpuArch::DAV_2201) {
        td::Report(api, "npu arch " + std::to_string(static_cast<uint32_t>(arch)) +
                            (arch == NpuArch::DAV_3510 || arch == NpuArch::DAV_5102
                                 ? std::string(" (the Ascend 950) is not simulated: only the Atlas A2/A3 (DAV_2201) is")
                                 : std::string(" does not support TransData (the Atlas A2/A3 and the Ascend 950 do)")));
        return false;
    }
    std::vector<int64_t> nc;
    if (!td::Match(api, config, srcShape.GetDims(), dstShape.GetDims(), nc)) return false;
    const int64_t n = nc[0], c = nc[1], dd = nc[2], h = nc[3], w = nc[4];
    const int64_t c1 = td::Up(c, 16), n1 = td::Up(n, 16), hwp = td::Up(h * w, 16) * 16;
    int64_t bytes = 0;
    if (to6hd) {
        bytes = 2 * (dd * hwp + dd * c1 * 16 * hwp);
    } else if (from6hd) {
        bytes = 2 * dd * c1 * 16 * hwp + 512;
    } else if (toFz) {
        bytes = 2 * std::max(c * dd * hwp, dd * h * w * n1 * 16) + 2 * n1 * 16 * dd * c1 * 16 * hwp;
    } else {
        bytes = 2 * n1 * 16 * c1 * 16 * dd * hwp * (n == n1 * 16 && c == c1 * 16 ? 1 : 2);
    }
    maxValue = static_cast<uint32_t>(bytes);
    minValue = maxValue;
    return true;
}

}  // namespace AscendC
