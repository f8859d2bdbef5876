// opgen host runtime: the C ABI of an op_host library. opgen_runtime compiles an op's op_host
// sources together with one translation unit that includes this header, then calls:
//   opgen_host_describe()   JSON of every op the sources registered (OpDef and host functions)
//   opgen_host_call(r, out) one TilingFunc / InferShape / InferDataType call
// A host function that returns a failure, throws, or faults (SIGSEGV, SIGFPE, ...) is reported
// in the reply with the op and the function; the calling process survives.
#pragma once

#include <setjmp.h>
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "host_abi_types.h"
#include "host_log.h"
#include "op_def.h"
#include "platform.h"
#include "tiling_def.h"

namespace opgen_host {

namespace abi {

inline std::string JsonStr(const std::string& s) { return JsonQuote(s); }

inline const char* ParamTypeName(ops::Option o) {
    switch (o) {
        case ops::OPTIONAL: return "optional";
        case ops::DYNAMIC: return "dynamic";
        default: return "required";
    }
}

inline std::string ParamsJson(std::vector<ops::OpParamDef>& params) {
    std::string out = "[";
    for (size_t i = 0; i < params.size(); ++i) {
        ops::OpParamDef& p = params[i];
        out += (i ? "," : "") + std::string("{\"name\":") + JsonStr(p.Name()) +
               ",\"param_type\":\"" + ParamTypeName(p.GetParamType()) + "\",\"dtypes\":[";
        for (size_t k = 0; k < p.GetDataTypes().size(); ++k) {
            out += (k ? "," : "") + std::to_string(static_cast<int>(p.GetDataTypes()[k]));
        }
        out += "],\"formats\":[";
        for (size_t k = 0; k < p.GetFormats().size(); ++k) {
            out += (k ? "," : "") + std::to_string(static_cast<int>(p.GetFormats()[k]));
        }
        out += std::string("],\"value_depend\":") +
               (p.GetValueDepend() != ops::IGNORE ? "true" : "false");
        if (!p.GetFollow().empty()) out += ",\"follow\":" + JsonStr(p.GetFollow());
        if (p.GetInitZero()) out += ",\"init_value\":0";
        out += "}";
    }
    return out + "]";
}

// Fault guard: a signal raised inside a host function jumps back to the call site.
struct Guard {
    static sigjmp_buf*& Jump() {
        static thread_local sigjmp_buf* jump = nullptr;
        return jump;
    }
    static void OnSignal(int sig) {
        sigjmp_buf* jump = Jump();
        if (jump != nullptr) siglongjmp(*jump, sig);
        signal(sig, SIG_DFL);
        raise(sig);
    }
};

inline const int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

inline const char* SignalName(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV (an invalid memory access, e.g. a null pointer)";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE (an integer division by zero)";
        case SIGILL: return "SIGILL";
        case SIGABRT: return "SIGABRT (abort, e.g. a failed assert)";
        default: return "a signal";
    }
}

template <typename F>
int32_t RunGuarded(F&& fn, std::string& message) {
    static thread_local std::vector<char> alt(1 << 16);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    stack_t old_ss{};
    sigaltstack(&ss, &old_ss);
    struct sigaction sa {};
    sa.sa_handler = &Guard::OnSignal;
    sa.sa_flags = SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    struct sigaction old[sizeof(kSignals) / sizeof(kSignals[0])];
    for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
        sigaction(kSignals[i], &sa, &old[i]);
    }
    sigjmp_buf jump;
    int32_t status = kOk;
    Guard::Jump() = &jump;
    const int sig = sigsetjmp(jump, 1);
    if (sig == 0) {
        try {
            status = fn();
        } catch (const std::exception& e) {
            message += std::string("threw ") + e.what();
            status = kThrew;
        } catch (...) {
            message += "threw an exception";
            status = kThrew;
        }
    } else {
        message += std::string("crashed with ") + SignalName(sig);
        status = kFault;
    }
    Guard::Jump() = nullptr;
    for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
        sigaction(kSignals[i], &old[i], nullptr);
    }
    sigaltstack(&old_ss, nullptr);
    return status;
}

inline std::mutex& CallMutex() {
    static std::mutex* mu = new std::mutex();
    return *mu;
}

// Builds every OpDef registered with OP_ADD (once; a constructor that throws is remembered).
inline std::string& DefErrors() {
    static std::string* errors = new std::string();
    return *errors;
}

inline void BuildDefs() {
    static bool built = false;
    if (built) return;
    built = true;
    Registry& r = Ops();
    std::vector<std::pair<std::string, OpImpl*>> todo;
    {
        std::lock_guard<std::mutex> lock(r.mu);
        for (auto& kv : r.ops) todo.emplace_back(kv.first, &kv.second);
    }
    for (auto& item : todo) {
        OpImpl* impl = item.second;
        if (!impl->make_def || impl->def) continue;
        std::string message;
        const int32_t status = RunGuarded(
            [&] {
                impl->def.reset(impl->make_def());
                return kOk;
            },
            message);
        if (status != kOk) {
            DefErrors() += item.first + ": the OpDef constructor " + message + "; ";
        }
    }
}

inline OpImpl* Find(const std::string& op_type) {
    Registry& r = Ops();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.ops.find(op_type);
    return it == r.ops.end() ? nullptr : &it->second;
}

inline void Fill(gert::Tensor& t, const OpgenHostTensor& h) {
    t.SetDataType(static_cast<ge::DataType>(h.dtype));
    t.SetStorageFormat(static_cast<ge::Format>(h.format));
    t.SetOriginFormat(static_cast<ge::Format>(h.format));
    gert::Shape s;
    for (int32_t d = 0; d < h.ndim && d < 25; ++d) s.AppendDim(h.dims[d]);
    t.MutableStorageShape() = s;
    t.MutableOriginShape() = s;
    t.SetData(h.data, static_cast<size_t>(h.nbytes < 0 ? 0 : h.nbytes));
}

// Each IR parameter's first instance and instance count from `counts` (n of them; a negative
// count is 0), which must add up to the `total` tensors passed; "" or what is wrong.
inline std::string Instances(const int32_t* counts, int32_t n, int32_t total, const char* what,
                             std::vector<size_t>& start, std::vector<size_t>& count) {
    size_t at = 0;
    for (int32_t i = 0; i < n; ++i) {
        const size_t k = static_cast<size_t>(counts[i] < 0 ? 0 : counts[i]);
        start.push_back(at);
        count.push_back(k);
        at += k;
    }
    if (at != static_cast<size_t>(total)) {
        return std::string("the IR ") + what + " counts add up to " + std::to_string(at) +
               " tensors, " + std::to_string(total) + " were passed";
    }
    return "";
}

inline std::string BuildCall(const OpgenHostRequest& req, gert::NodeCall& call) {
    call.op_type = req.op_type;
    std::string bad = Instances(req.ir_counts, req.num_ir_inputs, req.num_inputs, "input",
                                call.ir_start, call.ir_count);
    if (!bad.empty()) return bad;
    call.inputs.resize(static_cast<size_t>(req.num_inputs));
    for (int32_t i = 0; i < req.num_inputs; ++i) Fill(call.inputs[i], req.inputs[i]);
    if (req.num_outputs > OPGEN_HOST_MAX_OUTPUTS) return "too many outputs";
    if (req.ir_out_counts != nullptr) {  // a dynamic output's instances are consecutive
        bad = Instances(req.ir_out_counts, req.num_ir_outputs, req.num_outputs, "output",
                        call.ir_out_start, call.ir_out_count);
        if (!bad.empty()) return bad;
    }
    for (int32_t i = 0; i < req.num_outputs; ++i) {
        gert::Tensor t;
        Fill(t, req.outputs[i]);
        call.output_shapes.push_back(t.GetShape());
        call.output_shape_asked.push_back(false);
        call.output_descs.push_back(t.Desc());
        call.output_dtypes.push_back(t.GetDataType());
    }
    for (int32_t i = 0; i < req.num_attrs; ++i) {
        const OpgenHostAttr& a = req.attrs[i];
        const size_t n = static_cast<size_t>(a.count < 0 ? 0 : a.count);
        switch (a.kind) {
            case 0: call.attrs.AddBytes(a.data, sizeof(int64_t)); break;
            case 1: call.attrs.AddBytes(a.data, sizeof(float)); break;
            case 2: call.attrs.AddBytes(a.data, sizeof(bool)); break;
            case 3: call.attrs.AddBytes(a.data, n); break;
            case 4: call.attrs.AddList(a.data, n, sizeof(int64_t)); break;
            case 5: call.attrs.AddList(a.data, n, sizeof(float)); break;
            case 6: call.attrs.AddList(a.data, n, sizeof(bool)); break;
            default: return "attr " + std::to_string(i) + " has an unknown kind";
        }
    }
    return "";
}

inline void SetPlatform(const OpgenHostRequest& req) {
    fe::PlatFormInfos& p = CurrentPlatform();
    p.soc = req.soc == nullptr ? "ascend910b" : req.soc;
    if (req.aiv_cores > 0) p.aiv_cores = static_cast<uint32_t>(req.aiv_cores);
    if (req.aic_cores > 0) p.aic_cores = static_cast<uint32_t>(req.aic_cores);
    if (req.ub_bytes > 0) p.ub_bytes = static_cast<uint64_t>(req.ub_bytes);
    if (req.sys_workspace >= 0) p.sys_workspace = static_cast<uint32_t>(req.sys_workspace);
}

// TilingParse runs once per op and SoC, as CANN runs it once per compiled node.
inline std::shared_ptr<void> CompileInfo(OpImpl& impl, const OpgenHostRequest& req,
                                         std::string& message, int32_t& status) {
    static std::map<std::string, std::shared_ptr<void>>* cache =
        new std::map<std::string, std::shared_ptr<void>>();
    status = kOk;
    if (!impl.new_compile_info) return nullptr;
    const std::string key = std::string(req.op_type) + "@" + CurrentPlatform().soc;
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
    std::shared_ptr<void> info = impl.new_compile_info();
    if (impl.tiling_parse != nullptr) {
        gert::NodeCall call;
        call.op_type = req.op_type;
        call.compile_info = info.get();
        call.platform = &CurrentPlatform();
        gert::TilingParseContext ctx(&call);
        status = RunGuarded(
            [&] { return impl.tiling_parse(&ctx) == ge::GRAPH_SUCCESS ? kOk : kFailed; }, message);
        if (status != kOk) {
            message = "TilingParse " + (status == kFailed ? std::string("returned GRAPH_FAILED")
                                                          : message);
            return nullptr;
        }
    }
    (*cache)[key] = info;
    return info;
}

// The reply's message: the result on its first line, then what the op_host logged (its own
// words on why it failed). A long log keeps its end, where a failure's reason is.
inline void Reply(OpgenHostReply& rep, const std::string& message) {
    std::string log = HostLog();
    while (!log.empty() && log.back() == '\n') log.pop_back();
    const size_t room = sizeof(rep.message) - 1;
    std::string all = message;
    if (!log.empty()) {
        const std::string head = message + "\n";
        if (head.size() + log.size() > room && room > head.size() + 4) {
            log = "..." + log.substr(log.size() - (room - head.size() - 4));
        }
        all = head + log;
    }
    std::snprintf(rep.message, sizeof(rep.message), "%s", all.c_str());
}

inline int32_t Call(const OpgenHostRequest& req, OpgenHostReply& rep) {
    std::lock_guard<std::mutex> lock(CallMutex());
    std::memset(&rep, 0, sizeof(rep));
    HostLog().clear();
    BuildDefs();
    SetPlatform(req);
    OpImpl* impl = req.op_type == nullptr ? nullptr : Find(req.op_type);
    if (impl == nullptr) {
        Reply(rep, std::string("no op_host registration of op type '") +
                       (req.op_type ? req.op_type : "") + "' (OP_ADD or IMPL_OP_OPTILING)");
        return kMissing;
    }
    gert::NodeCall call;
    const std::string bad = BuildCall(req, call);
    if (!bad.empty()) {
        Reply(rep, bad);
        return kBadRequest;
    }
    call.platform = &CurrentPlatform();
    std::string message;
    int32_t status = kOk;
    if (req.what == OPGEN_HOST_TILING) {
        if (impl->tiling == nullptr) {
            Reply(rep, "the op_host registers no tiling function (AICore().SetTiling or "
                       "IMPL_OP_OPTILING(...).Tiling)");
            return kMissing;
        }
        std::shared_ptr<void> info = CompileInfo(*impl, req, message, status);
        if (status != kOk) {
            Reply(rep, message);
            return status;
        }
        call.compile_info = info.get();
        call.tiling.Init(static_cast<size_t>(req.tiling_capacity), req.tiling);
        gert::TilingContext ctx(&call);
        status = RunGuarded(
            [&] { return impl->tiling(&ctx) == ge::GRAPH_SUCCESS ? kOk : kFailed; }, message);
        rep.tiling_size = static_cast<int64_t>(call.tiling.GetDataSize());
        rep.tiling_key = call.tiling_key;
        rep.block_dim = call.block_dim;
        rep.block_dim_set = call.block_dim_set ? 1 : 0;
        rep.schedule_mode = static_cast<int32_t>(call.schedule_mode);
        rep.need_atomic = call.need_atomic ? 1 : 0;
        rep.init_zero_outputs = 0;
        if (impl->def) {
            auto& outs = impl->def->GetOutputs();
            for (size_t o = 0; o < outs.size() && o < 64; ++o) {
                if (outs[o].GetInitZero()) rep.init_zero_outputs |= uint64_t{1} << o;
            }
        }
        const size_t nws = call.workspaces.size();
        rep.num_workspaces = static_cast<int32_t>(nws);
        for (size_t i = 0; i < nws && i < OPGEN_HOST_MAX_WORKSPACES; ++i) {
            rep.workspaces[i] = static_cast<int64_t>(call.workspaces[i]);
        }
    } else if (req.what == OPGEN_HOST_INFER_SHAPE || req.what == OPGEN_HOST_INFER_DTYPE) {
        const bool shape = req.what == OPGEN_HOST_INFER_SHAPE;
        if ((shape ? impl->infer_shape == nullptr : impl->infer_dtype == nullptr)) {
            Reply(rep, shape ? "no InferShape registered" : "no InferDataType registered");
            return kMissing;
        }
        if (shape) {
            gert::InferShapeContext ctx(&call);
            status = RunGuarded(
                [&] { return impl->infer_shape(&ctx) == ge::GRAPH_SUCCESS ? kOk : kFailed; },
                message);
        } else {
            gert::InferDataTypeContext ctx(&call);
            status = RunGuarded(
                [&] { return impl->infer_dtype(&ctx) == ge::GRAPH_SUCCESS ? kOk : kFailed; },
                message);
        }
        for (size_t i = 0; i < call.output_shapes.size(); ++i) {
            const gert::Shape& s = call.output_shapes[i].GetStorageShape();
            // -1: InferShape never asked for this output's shape
            rep.out_ndim[i] = shape && !call.output_shape_asked[i] ? -1
                                                                   : static_cast<int32_t>(s.GetDimNum());
            for (size_t d = 0; d < s.GetDimNum(); ++d) rep.out_dims[i][d] = s.GetDim(d);
            rep.out_dtypes[i] = static_cast<int32_t>(call.output_dtypes[i]);
        }
    } else {
        Reply(rep, "unknown request");
        return kBadRequest;
    }
    if (status == kFailed) message = "returned GRAPH_FAILED";
    Reply(rep, message);
    return status;
}

inline std::string Describe() {
    BuildDefs();
    std::string out = "{\"errors\":" + JsonStr(DefErrors()) + ",\"ops\":[";
    Registry& r = Ops();
    std::lock_guard<std::mutex> lock(r.mu);
    bool first = true;
    for (auto& kv : r.ops) {
        OpImpl& impl = kv.second;
        out += (first ? "" : ",") + std::string("{\"op_type\":") + JsonStr(kv.first);
        first = false;
        out += std::string(",\"tiling\":") + (impl.tiling ? "true" : "false");
        out += std::string(",\"tiling_parse\":") + (impl.tiling_parse ? "true" : "false");
        out += std::string(",\"infer_shape\":") + (impl.infer_shape ? "true" : "false");
        out += std::string(",\"infer_dtype\":") + (impl.infer_dtype ? "true" : "false");
        if (impl.def) {
            ops::OpDef& d = *impl.def;
            out += ",\"def\":{\"inputs\":" + ParamsJson(d.GetInputs()) +
                   ",\"outputs\":" + ParamsJson(d.GetOutputs()) + ",\"attrs\":[";
            for (size_t i = 0; i < d.GetAttrs().size(); ++i) {
                ops::OpAttrDef& a = d.GetAttrs()[i];
                out += (i ? "," : "") + std::string("{\"name\":") + JsonStr(a.Name()) +
                       ",\"type\":" + JsonStr(a.Type()) +
                       ",\"required\":" + (a.IsRequired() ? "true" : "false");
                if (!a.DefaultJson().empty()) out += ",\"default\":" + a.DefaultJson();
                out += "}";
            }
            out += "],\"socs\":[";
            bool first_soc = true;
            for (auto& cfg : d.AICore().GetAICoreConfigs()) {
                out += (first_soc ? "" : ",") + JsonStr(cfg.first);
                first_soc = false;
            }
            out += "]}";
        }
        out += "}";
    }
    return out + "]}";
}

}  // namespace abi
}  // namespace opgen_host

#define OPGEN_HOST_EXPORT extern "C" __attribute__((visibility("default")))

OPGEN_HOST_EXPORT const char* opgen_host_describe() {
    static std::string* text = nullptr;
    if (text == nullptr) text = new std::string(opgen_host::abi::Describe());
    return text->c_str();
}

OPGEN_HOST_EXPORT int32_t opgen_host_call(const OpgenHostRequest* req, OpgenHostReply* rep) {
    if (req == nullptr || rep == nullptr) return opgen_host::kBadRequest;
    return opgen_host::abi::Call(*req, *rep);
}

OPGEN_HOST_EXPORT int32_t opgen_host_abi_version() { return 1; }

// CANN's device-log entry points (toolchain/slog.h), defined once per op_host library: this
// header is compiled into exactly one of its translation units. Hidden, so two op_host
// libraries in one process each keep their own.
extern "C" int32_t CheckLogLevel(int32_t moduleId, int32_t logLevel) {
    (void)moduleId;
    return opgen_host::LogEnabled(logLevel) ? 1 : 0;
}

extern "C" void DlogRecord(int32_t moduleId, int32_t level, const char* fmt, ...) {
    (void)moduleId;
    if (!opgen_host::LogEnabled(level)) return;
    va_list args;
    va_start(args, fmt);
    const std::string text = opgen_host::FormatV(fmt, args);
    va_end(args);
    opgen_host::LogRecord(level, text);
}
