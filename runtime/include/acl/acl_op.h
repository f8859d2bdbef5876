// opgen NPU simulator: acl_op.h on the CPU. Single-operator execution of an installed op package
// (docs/cann.md, "Single-operator models: atc --singleop and aclopExecuteV2"):
//
// - `atc --singleop=ops.json --output=DIR` (the toolkit's bin/atc) writes one single-op model
//   (.om) per op of the JSON, each naming the op type and its inputs' and outputs' dtypes,
//   formats and shapes, and the attrs the JSON gives;
// - aclopSetModelDir(DIR) / aclopLoad load them;
// - aclopExecuteV2 / aclopExecute find the model matching the op type and the tensor
//   descriptions (else ACL_ERROR_OP_NOT_FOUND, naming what the loaded models take) and run the
//   op through the aclnn implementation of the op package that holds it: the vendors under
//   $ASCEND_OPP_PATH/vendors in config.ini's load_priority order, each op_api/lib/
//   libcust_opapi.so (opgen_opapi_execute, opgen_aclnn/op_api.h). The work is done when the call
//   returns, as for every stream here.
//
// C++11, as the drivers' CMake files compile it.
#pragma once

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

constexpr int ACL_ERROR_READ_MODEL_FAILURE = 100014;
constexpr int ACL_ERROR_OP_TYPE_NOT_MATCH = 100020;
constexpr int ACL_ERROR_OP_INPUT_NOT_MATCH = 100021;
constexpr int ACL_ERROR_OP_OUTPUT_NOT_MATCH = 100022;
constexpr int ACL_ERROR_OP_ATTR_NOT_MATCH = 100023;
constexpr int ACL_ERROR_OP_NOT_FOUND = 100024;
constexpr int ACL_ERROR_OP_LOAD_FAILED = 100025;

typedef enum aclEngineType {
    ACL_ENGINE_SYS,
    ACL_ENGINE_AICORE,
    ACL_ENGINE_VECTOR,
} aclopEngineType;

// One attr as it crosses into an op package's library: plain data only (the library and the
// driver may be built with different std::string ABIs).
struct OpgenOpAttrView {
    const char* name;
    int kind;  // OpgenOpAttrKind
    int64_t i;
    double f;
    const char* s;
    size_t n;
    const int64_t* ints;
    const float* floats;
    const uint8_t* bools;
    const char* const* strings;
};
enum OpgenOpAttrKind {
    kOpgenAttrBool, kOpgenAttrInt, kOpgenAttrFloat, kOpgenAttrString, kOpgenAttrListBool,
    kOpgenAttrListInt, kOpgenAttrListFloat, kOpgenAttrListString, kOpgenAttrDataType
};

// An op package's single-op entry (defined by every generated libcust_opapi.so).
typedef int (*OpgenOpapiExecuteFn)(const char* op_type, const void* const* inputs, int num_inputs,
                                   const void* const* outputs, int num_outputs,
                                   const OpgenOpAttrView* attrs, int num_attrs, void* stream);
typedef int (*OpgenOpapiHasOpFn)(const char* op_type);
typedef void (*OpgenOpapiAttachFn)(void* gm_registry, void* acl_state);

struct aclopAttr {
    struct Value {
        int kind;
        int64_t i;
        double f;
        std::string s;
        std::vector<int64_t> ints;
        std::vector<float> floats;
        std::vector<uint8_t> bools;
        std::vector<std::string> strings;
        Value() : kind(0), i(0), f(0.0) {}
    };
    std::map<std::string, Value> values;
};

namespace opgen_acl {

struct OpTensorSpec {
    int dtype;
    int format;
    std::vector<int64_t> dims;  // -1: any extent; a single -2: any rank
};

struct OpModel {
    std::string source;  // the file it was loaded from
    std::string op_type;
    std::vector<OpTensorSpec> inputs, outputs;
    std::map<std::string, std::string> attrs;  // name -> the value as the model file writes it
};

inline std::vector<OpModel>& OpModels() {
    static std::vector<OpModel>* models = new std::vector<OpModel>();
    return *models;
}
inline std::mutex& OpModelsMutex() {
    static std::mutex* mu = new std::mutex();
    return *mu;
}

// A model file: "opgen-single-op-model 1", then "op TYPE", "input DTYPE FORMAT RANK DIMS...",
// "output ...", "attr NAME VALUE..." lines (written by `atc --singleop`).
inline bool ParseOpModel(const std::string& text, const std::string& source, OpModel* out,
                         std::string* why) {
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != "opgen-single-op-model 1") {
        *why = source + ": not a single-op model of the simulator toolkit (build it with its "
                        "atc --singleop)";
        return false;
    }
    OpModel m;
    m.source = source;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string key;
        words >> key;
        if (key.empty()) continue;
        if (key == "op") {
            words >> m.op_type;
        } else if (key == "input" || key == "output") {
            OpTensorSpec t;
            int rank = 0;
            if (!(words >> t.dtype >> t.format >> rank) || rank < -2 || rank > 25) {
                *why = source + ": bad line '" + line + "'";
                return false;
            }
            const int n = rank < 0 ? 1 : rank;
            for (int k = 0; k < n; ++k) {
                int64_t d = 0;
                if (!(words >> d)) {
                    *why = source + ": bad line '" + line + "'";
                    return false;
                }
                t.dims.push_back(d);
            }
            (key == "input" ? m.inputs : m.outputs).push_back(t);
        } else if (key == "attr") {
            std::string name, rest;
            words >> name;
            std::getline(words, rest);
            m.attrs[name] = rest.empty() ? rest : rest.substr(1);
        } else {
            *why = source + ": unknown line '" + line + "'";
            return false;
        }
    }
    if (m.op_type.empty()) {
        *why = source + ": no op line";
        return false;
    }
    *out = m;
    return true;
}

inline bool ReadText(const std::string& path, std::string* text) {
    std::ifstream f(path.c_str(), std::ios::binary);
    if (!f) return false;
    std::ostringstream s;
    s << f.rdbuf();
    *text = s.str();
    return true;
}

inline std::string DescribeSpec(const OpTensorSpec& t) {
    std::ostringstream s;
    s << "dtype " << t.dtype << " format " << t.format << " [";
    for (size_t k = 0; k < t.dims.size(); ++k) s << (k ? "," : "") << t.dims[k];
    s << "]";
    return s.str();
}

inline bool SpecMatches(const OpTensorSpec& want, const aclTensorDesc* got) {
    if (got == nullptr || want.dtype != static_cast<int>(got->dtype) ||
        want.format != static_cast<int>(got->format)) {
        return false;
    }
    if (want.dims.size() == 1 && want.dims[0] == -2) return true;
    if (got->num_dims < 0 || static_cast<size_t>(got->num_dims) != want.dims.size()) return false;
    for (size_t k = 0; k < want.dims.size(); ++k) {
        if (want.dims[k] != -1 && want.dims[k] != got->dims[k]) return false;
    }
    return true;
}

inline OpTensorSpec SpecOf(const aclTensorDesc* d) {
    OpTensorSpec t;
    t.dtype = d ? static_cast<int>(d->dtype) : -1;
    t.format = d ? static_cast<int>(d->format) : -1;
    if (d != nullptr) t.dims.assign(d->dims, d->dims + (d->num_dims < 0 ? 0 : d->num_dims));
    return t;
}

// The op path's vendors in load order: config.ini's load_priority, then any other vendor.
inline std::vector<std::string> VendorLibraries() {
    std::vector<std::string> libs;
    const char* opp = std::getenv("ASCEND_OPP_PATH");
    if (opp == nullptr || *opp == '\0') return libs;
    const std::string vendors = std::string(opp) + "/vendors";
    std::vector<std::string> order;
    std::string config;
    if (ReadText(vendors + "/config.ini", &config)) {
        std::istringstream in(config);
        std::string line;
        while (std::getline(in, line)) {
            if (line.compare(0, 14, "load_priority=") != 0) continue;
            std::istringstream names(line.substr(14));
            std::string v;
            while (std::getline(names, v, ',')) {
                if (!v.empty()) order.push_back(v);
            }
        }
    }
    DIR* dir = opendir(vendors.c_str());
    if (dir != nullptr) {
        std::vector<std::string> rest;
        for (dirent* e = readdir(dir); e != nullptr; e = readdir(dir)) {
            const std::string name = e->d_name;
            if (name.empty() || name[0] == '.') continue;
            bool listed = false;
            for (size_t k = 0; k < order.size(); ++k) listed = listed || order[k] == name;
            if (!listed) rest.push_back(name);
        }
        closedir(dir);
        std::sort(rest.begin(), rest.end());
        order.insert(order.end(), rest.begin(), rest.end());
    }
    for (size_t k = 0; k < order.size(); ++k) {
        const std::string lib = vendors + "/" + order[k] + "/op_api/lib/libcust_opapi.so";
        std::ifstream probe(lib.c_str());
        if (probe) libs.push_back(lib);
    }
    return libs;
}

inline std::vector<OpgenOpAttrView> AttrViews(const aclopAttr* attr,
                                              std::vector<std::vector<const char*> >* keep) {
    std::vector<OpgenOpAttrView> views;
    if (attr == nullptr) return views;
    for (std::map<std::string, aclopAttr::Value>::const_iterator it = attr->values.begin();
         it != attr->values.end(); ++it) {
        const aclopAttr::Value& v = it->second;
        OpgenOpAttrView a;
        std::memset(&a, 0, sizeof(a));
        a.name = it->first.c_str();
        a.kind = v.kind;
        a.i = v.i;
        a.f = v.f;
        a.s = v.s.c_str();
        a.ints = v.ints.empty() ? nullptr : v.ints.data();
        a.floats = v.floats.empty() ? nullptr : v.floats.data();
        a.bools = v.bools.empty() ? nullptr : v.bools.data();
        a.n = v.kind == kOpgenAttrListInt ? v.ints.size()
              : v.kind == kOpgenAttrListFloat ? v.floats.size()
              : v.kind == kOpgenAttrListBool ? v.bools.size()
              : v.strings.size();
        if (v.kind == kOpgenAttrListString) {
            keep->push_back(std::vector<const char*>());
            for (size_t k = 0; k < v.strings.size(); ++k) keep->back().push_back(v.strings[k].c_str());
            a.strings = keep->back().data();
        }
        views.push_back(a);
    }
    return views;
}

inline aclError SetAttr(const char* api, aclopAttr* attr, const char* name,
                        const aclopAttr::Value& v) {
    if (attr == nullptr || name == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": attr and attrName must not be null");
    }
    attr->values[name] = v;
    return ACL_SUCCESS;
}

inline aclError ExecuteOp(const char* api, const char* opType, int numInputs,
                          const aclTensorDesc* const* inputDesc, const aclDataBuffer* const* inputs,
                          int numOutputs, const aclTensorDesc* const* outputDesc,
                          const aclDataBuffer* const* outputs, const aclopAttr* attr,
                          aclrtStream stream) {
    const std::string fn = api;
    if (opType == nullptr || numInputs < 0 || numOutputs < 0 ||
        (numInputs > 0 && (inputDesc == nullptr || inputs == nullptr)) ||
        (numOutputs > 0 && (outputDesc == nullptr || outputs == nullptr))) {
        return Fail(ACL_ERROR_INVALID_PARAM, fn + ": opType, the descriptions and the buffers "
                                                  "must not be null");
    }
    std::vector<OpModel> candidates;
    {
        std::lock_guard<std::mutex> lock(OpModelsMutex());
        for (size_t k = 0; k < OpModels().size(); ++k) {
            if (OpModels()[k].op_type == opType) candidates.push_back(OpModels()[k]);
        }
    }
    const OpModel* found = nullptr;
    for (size_t k = 0; k < candidates.size() && found == nullptr; ++k) {
        const OpModel& m = candidates[k];
        bool ok = m.inputs.size() == static_cast<size_t>(numInputs) &&
                  m.outputs.size() == static_cast<size_t>(numOutputs);
        for (int j = 0; ok && j < numInputs; ++j) ok = SpecMatches(m.inputs[j], inputDesc[j]);
        for (int j = 0; ok && j < numOutputs; ++j) ok = SpecMatches(m.outputs[j], outputDesc[j]);
        if (ok) found = &candidates[k];
    }
    if (found == nullptr) {
        std::ostringstream msg;
        msg << fn << ": no single-op model of " << opType << " for inputs (";
        for (int j = 0; j < numInputs; ++j) msg << (j ? "; " : "") << DescribeSpec(SpecOf(inputDesc[j]));
        msg << ") and outputs (";
        for (int j = 0; j < numOutputs; ++j) msg << (j ? "; " : "") << DescribeSpec(SpecOf(outputDesc[j]));
        msg << ")";
        if (candidates.empty()) {
            msg << "; none of " << opType << " is loaded: build one with atc --singleop=<ops.json> "
                << "--output=<dir> and load it with aclopSetModelDir(<dir>)";
        } else {
            msg << "; the loaded models of " << opType << " take:";
            for (size_t k = 0; k < candidates.size(); ++k) {
                msg << " [" << candidates[k].source << ": inputs (";
                for (size_t j = 0; j < candidates[k].inputs.size(); ++j) {
                    msg << (j ? "; " : "") << DescribeSpec(candidates[k].inputs[j]);
                }
                msg << ")]";
            }
        }
        return Fail(ACL_ERROR_OP_NOT_FOUND, msg.str());
    }
    std::vector<std::string> tried = VendorLibraries();
    OpgenOpapiExecuteFn execute = nullptr;
    for (size_t k = 0; k < tried.size() && execute == nullptr; ++k) {
        void* lib = dlopen(tried[k].c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (lib == nullptr) continue;
        OpgenOpapiHasOpFn has = reinterpret_cast<OpgenOpapiHasOpFn>(dlsym(lib, "opgen_opapi_has_op"));
        if (has != nullptr && has(opType) != 0) {
            execute = reinterpret_cast<OpgenOpapiExecuteFn>(dlsym(lib, "opgen_opapi_execute"));
            // the library checks the program's streams and aclrtMalloc buffers, not copies
            OpgenOpapiAttachFn attach =
                reinterpret_cast<OpgenOpapiAttachFn>(dlsym(lib, "opgen_opapi_attach"));
            if (attach != nullptr) attach(opgen_sim::GmRegistryPtr(), RtPtr());
        }
    }
    if (execute == nullptr) {
        const char* opp = std::getenv("ASCEND_OPP_PATH");
        return Fail(ACL_ERROR_OP_LOAD_FAILED,
                    fn + ": the single-op model " + found->source + " names " + opType +
                        ", which no op package under " +
                        (opp ? std::string(opp) + "/vendors" : std::string("$ASCEND_OPP_PATH (not set)")) +
                        " holds: install its package (its custom_opp_*.run, or opgen build)");
    }
    std::vector<std::vector<const char*> > keep;
    std::vector<OpgenOpAttrView> attrs = AttrViews(attr, &keep);
    // each tensor goes in as its description and its buffer, side by side
    std::vector<const void*> pairs_in, pairs_out;
    for (int j = 0; j < numInputs; ++j) {
        pairs_in.push_back(inputDesc[j]);
        pairs_in.push_back(inputs[j]);
    }
    for (int j = 0; j < numOutputs; ++j) {
        pairs_out.push_back(outputDesc[j]);
        pairs_out.push_back(outputs[j]);
    }
    const int status = execute(opType, pairs_in.empty() ? nullptr : pairs_in.data(), numInputs,
                               pairs_out.empty() ? nullptr : pairs_out.data(), numOutputs,
                               attrs.empty() ? nullptr : attrs.data(),
                               static_cast<int>(attrs.size()), stream);
    if (status != 0) {
        return Fail(ACL_ERROR_FAILURE, fn + ": " + opType + " failed (aclnnStatus " +
                                           std::to_string(status) + "); see the message above");
    }
    return ACL_SUCCESS;
}

}  // namespace opgen_acl

extern "C" {

inline aclopAttr* aclopCreateAttr() { return new aclopAttr(); }
inline void aclopDestroyAttr(const aclopAttr* attr) { delete attr; }

inline aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrBool;
    v.i = attrValue ? 1 : 0;
    return opgen_acl::SetAttr("aclopSetAttrBool", attr, attrName, v);
}
inline aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrInt;
    v.i = attrValue;
    return opgen_acl::SetAttr("aclopSetAttrInt", attr, attrName, v);
}
inline aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrFloat;
    v.f = attrValue;
    return opgen_acl::SetAttr("aclopSetAttrFloat", attr, attrName, v);
}
inline aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrString;
    v.s = attrValue ? attrValue : "";
    return opgen_acl::SetAttr("aclopSetAttrString", attr, attrName, v);
}
inline aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrDataType;
    v.i = static_cast<int64_t>(attrValue);
    return opgen_acl::SetAttr("aclopSetAttrDataType", attr, attrName, v);
}
inline aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues,
                                     const uint8_t* values) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrListBool;
    if (numValues > 0 && values != nullptr) v.bools.assign(values, values + numValues);
    return opgen_acl::SetAttr("aclopSetAttrListBool", attr, attrName, v);
}
inline aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues,
                                    const int64_t* values) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrListInt;
    if (numValues > 0 && values != nullptr) v.ints.assign(values, values + numValues);
    return opgen_acl::SetAttr("aclopSetAttrListInt", attr, attrName, v);
}
inline aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues,
                                      const float* values) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrListFloat;
    if (numValues > 0 && values != nullptr) v.floats.assign(values, values + numValues);
    return opgen_acl::SetAttr("aclopSetAttrListFloat", attr, attrName, v);
}
inline aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName, int numValues,
                                       const char** values) {
    aclopAttr::Value v;
    v.kind = kOpgenAttrListString;
    for (int k = 0; k < numValues && values != nullptr; ++k) v.strings.push_back(values[k] ? values[k] : "");
    return opgen_acl::SetAttr("aclopSetAttrListString", attr, attrName, v);
}

// Loads every *.om of the directory (the single-op models atc --singleop wrote).
inline aclError aclopSetModelDir(const char* modelDir) {
    if (modelDir == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclopSetModelDir: modelDir is null");
    DIR* dir = opendir(modelDir);
    if (dir == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_FILE,
                               std::string("aclopSetModelDir: ") + modelDir + ": no such directory");
    }
    std::vector<std::string> files;
    for (dirent* e = readdir(dir); e != nullptr; e = readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() > 3 && name.compare(name.size() - 3, 3, ".om") == 0) files.push_back(name);
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    std::vector<opgen_acl::OpModel> loaded;
    for (size_t k = 0; k < files.size(); ++k) {
        const std::string path = std::string(modelDir) + "/" + files[k];
        std::string text, why;
        opgen_acl::OpModel m;
        if (!opgen_acl::ReadText(path, &text)) {
            return opgen_acl::Fail(ACL_ERROR_READ_MODEL_FAILURE, "aclopSetModelDir: cannot read " + path);
        }
        if (!opgen_acl::ParseOpModel(text, path, &m, &why)) {
            return opgen_acl::Fail(ACL_ERROR_READ_MODEL_FAILURE, "aclopSetModelDir: " + why);
        }
        loaded.push_back(m);
    }
    std::lock_guard<std::mutex> lock(opgen_acl::OpModelsMutex());
    opgen_acl::OpModels().insert(opgen_acl::OpModels().end(), loaded.begin(), loaded.end());
    return ACL_SUCCESS;
}

// Loads one single-op model from memory (the bytes of an .om file).
inline aclError aclopLoad(const void* model, size_t modelSize) {
    if (model == nullptr || modelSize == 0) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclopLoad: model is null or empty");
    }
    std::string why;
    opgen_acl::OpModel m;
    if (!opgen_acl::ParseOpModel(std::string(static_cast<const char*>(model), modelSize),
                                 "aclopLoad(model)", &m, &why)) {
        return opgen_acl::Fail(ACL_ERROR_READ_MODEL_FAILURE, "aclopLoad: " + why);
    }
    std::lock_guard<std::mutex> lock(opgen_acl::OpModelsMutex());
    opgen_acl::OpModels().push_back(m);
    return ACL_SUCCESS;
}

inline aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                               aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                               aclDataBuffer* outputs[], aclopAttr* attr, aclrtStream stream) {
    return opgen_acl::ExecuteOp("aclopExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs,
                                outputDesc, outputs, attr, stream);
}

inline aclError aclopExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                             const aclDataBuffer* const inputs[], int numOutputs,
                             const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                             const aclopAttr* attr, aclrtStream stream) {
    return opgen_acl::ExecuteOp("aclopExecute", opType, numInputs, inputDesc, inputs, numOutputs,
                                outputDesc, outputs, attr, stream);
}

}  // extern "C"
