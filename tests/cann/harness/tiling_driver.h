// Runs a generated <OpType>DefaultTiling against the stub CANN context (tests/cann_stubs), one
// case per stdin line, for tests/cann/test_tiling_equivalence.py. A case line is
//   <ub bytes> <vector cores>
//   then per input:  <present 0|1> <ge::DataType> <rank> <dims...>   (absent: "0")
//   then per output: <ge::DataType> <rank> <dims...>
//   then per attr:   i <int64> | f <float> | b <0|1> | -   (by the attr's index in the spec)
// and its answer line is "ok <blockDim> <tiling data as hex>" or "fail".
#pragma once
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "exe_graph/runtime/contexts.h"

namespace opgen_harness {
using TilingFunc = ge::graphStatus (*)(gert::TilingContext*);

inline gert::StorageShape ReadShape(std::istream& in)
{
    gert::StorageShape s;
    size_t rank = 0;
    in >> rank;
    for (size_t i = 0; i < rank; ++i) {
        int64_t d = 0;
        in >> d;
        s.MutableStorageShape().AppendDim(d);
        s.MutableOriginShape().AppendDim(d);
    }
    return s;
}

inline int Run(TilingFunc func, size_t numInputs, size_t numOutputs, size_t numAttrs)
{
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) {
            continue;
        }
        std::istringstream in(line);
        fe::PlatFormInfos platform;
        in >> platform.stub_ub_bytes >> platform.stub_core_num_aiv;
        // deques: pointers into them stay valid while they grow.
        std::deque<gert::StorageShape> shapes;
        std::deque<gert::CompileTimeTensorDesc> descs;
        gert::TilingContext context;
        for (size_t i = 0; i < numInputs; ++i) {
            int present = 0;
            in >> present;
            if (!present) {
                context.stub_inputs.push_back(nullptr);
                context.stub_input_descs.push_back(nullptr);
                continue;
            }
            int dtype = 0;
            in >> dtype;
            descs.emplace_back().SetDataType(static_cast<ge::DataType>(dtype));
            shapes.push_back(ReadShape(in));
            context.stub_inputs.push_back(&shapes.back());
            context.stub_input_descs.push_back(&descs.back());
        }
        for (size_t i = 0; i < numOutputs; ++i) {
            int dtype = 0;
            in >> dtype;
            descs.emplace_back().SetDataType(static_cast<ge::DataType>(dtype));
            shapes.push_back(ReadShape(in));
            context.stub_outputs.push_back(&shapes.back());
            context.stub_output_descs.push_back(&descs.back());
        }
        std::deque<int64_t> ints;
        std::deque<float> floats;
        std::deque<bool> bools;
        gert::RuntimeAttrs attrs;
        for (size_t i = 0; i < numAttrs; ++i) {
            std::string kind;
            in >> kind;
            if (kind == "i") {
                in >> ints.emplace_back();
                attrs.stub_values.push_back(&ints.back());
            } else if (kind == "f") {
                double v = 0;
                in >> v;
                floats.push_back(static_cast<float>(v));
                attrs.stub_values.push_back(&floats.back());
            } else if (kind == "b") {
                int v = 0;
                in >> v;
                bools.push_back(v != 0);
                attrs.stub_values.push_back(&bools.back());
            } else {
                attrs.stub_values.push_back(nullptr);
            }
        }
        if (!in) {
            std::cerr << "bad case line: " << line << "\n";
            return 2;
        }
        context.stub_attrs = &attrs;
        context.stub_platform = &platform;
        unsigned char buffer[4096];
        for (unsigned char& b : buffer) {
            b = 0xA5;  // garbage, as a real tiling buffer may hold
        }
        context.stub_tiling_data.StubAttach(buffer, sizeof(buffer));
        if (func(&context) != ge::GRAPH_SUCCESS) {
            std::cout << "fail\n";
            continue;
        }
        std::cout << "ok " << context.GetBlockDim() << " ";
        const size_t size = context.GetRawTilingData()->GetDataSize();
        for (size_t i = 0; i < size; ++i) {
            char hex[3];
            std::snprintf(hex, sizeof(hex), "%02x", buffer[i]);
            std::cout << hex;
        }
        std::cout << "\n";
    }
    return 0;
}
}  // namespace opgen_harness
