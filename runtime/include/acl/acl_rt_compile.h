// opgen NPU simulator: aclrtc, CANN's runtime compilation of Ascend C, on the CPU. A program
// hands its kernel source to aclrtcCreateProg and compiles it with aclrtcCompileProg; here the
// compile is `opgen rtc-compile` (opgen/rtc.py), which builds the source against the simulator
// into a shared library, the "binary" of aclrtcGetBinData that aclrtBinaryLoadFromData loads
// (acl/acl_rt_binary.h). The compiler is found as:
//   - OPGEN_RTC_PYTHON: a Python with opgen (`opgen run` sets it for the programs it runs), or
//   - $ASCEND_HOME_PATH/bin/opgen-rtc: the toolkit of `opgen config --toolkit` (its set_env.sh
//     sets ASCEND_HOME_PATH).
// An extern "C" kernel is found by its name; any other through a name expression
// (aclrtcAddNameExpr), whose lowered name (aclrtcGetLoweredName) is the expression itself.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_base.h"

typedef void* aclrtcProg;

constexpr int ACL_ERROR_RTC_INVALID_PROG = 176000;
constexpr int ACL_ERROR_RTC_INVALID_INPUT = 176001;
constexpr int ACL_ERROR_RTC_INVALID_OPTION = 176002;
constexpr int ACL_ERROR_RTC_COMPILATION = 176003;
constexpr int ACL_ERROR_RTC_LINKING = 176004;
constexpr int ACL_ERROR_RTC_NO_NAME_EXPR_AFTER_COMPILATION = 176005;
constexpr int ACL_ERROR_RTC_NO_LOWERED_NAMES_BEFORE_COMPILATION = 176006;
constexpr int ACL_ERROR_RTC_NAME_EXPR_NOT_VALID = 176007;
constexpr int ACL_ERROR_RTC_PROG_CREATION_FAILURE = 276000;
constexpr int ACL_ERROR_RTC_OUT_OF_MEMORY = 276001;
constexpr int ACL_ERROR_RTC_FAILURE = 576000;

namespace opgen_acl {

struct RtcProgram {
    std::string source;
    std::string name;
    std::vector<std::string> exprs;
    std::vector<std::pair<std::string, std::string>> lowered;  // expression -> lowered name
    std::string log;
    std::string binary;
    bool compiled = false;
};

inline std::mutex& RtcMutex() {
    static std::mutex* mu = new std::mutex();
    return *mu;
}

inline std::set<RtcProgram*>& RtcPrograms() {
    static std::set<RtcProgram*>* programs = new std::set<RtcProgram*>();
    return *programs;
}

inline RtcProgram* FindProgram(aclrtcProg prog) {
    std::lock_guard<std::mutex> lock(RtcMutex());
    auto* p = static_cast<RtcProgram*>(prog);
    return RtcPrograms().count(p) != 0 ? p : nullptr;
}

inline aclError BadProgram(const char* api, aclrtcProg prog) {
    return Fail(ACL_ERROR_RTC_INVALID_PROG, std::string(api) + ": prog " + Hex(prog) +
                                                " is not a program of aclrtcCreateProg (destroyed already?)");
}

// A name expression is a (possibly qualified, possibly templated) kernel name: compiled as the
// operand of `&(...)`, so nothing that could end that expression or start another is allowed.
inline bool ValidNameExpr(const std::string& e) {
    if (e.empty()) return false;
    for (const char ch : e) {
        if (ch == ';' || ch == '{' || ch == '}' || ch == '#' || ch == '"' || ch == '\'' || ch == '\\' ||
            ch == '\n' || ch == '\r' || ch == '\0') {
            return false;
        }
    }
    return e.find("//") == std::string::npos && e.find("/*") == std::string::npos;
}

inline bool WriteText(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    return static_cast<bool>(out);
}

inline std::string ReadText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void RemoveTree(const std::string& dir) {
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name != "." && name != "..") unlink((dir + "/" + name).c_str());
        }
        closedir(d);
    }
    rmdir(dir.c_str());
}

// The compiler's command line before its arguments, or an empty vector (the reason in *why).
inline std::vector<std::string> RtcCompiler(std::string* why) {
    const char* py = std::getenv("OPGEN_RTC_PYTHON");
    if (py != nullptr && *py != '\0') return {py, "-m", "opgen", "rtc-compile"};
    const char* home = std::getenv("ASCEND_HOME_PATH");
    if (home != nullptr && *home != '\0') {
        const std::string script = std::string(home) + "/bin/opgen-rtc";
        if (access(script.c_str(), X_OK) == 0) return {script};
        *why = "ASCEND_HOME_PATH (" + std::string(home) + ") has no bin/opgen-rtc: it is not the toolkit of "
               "`opgen config --toolkit`";
        return {};
    }
    *why = "no compiler: run the program with `opgen run`, or source the set_env.sh of "
           "`opgen config --toolkit` first";
    return {};
}

// Runs argv with stdout and stderr into log_path; its exit status, or -1.
inline int RunLogged(const std::vector<std::string>& argv, const std::string& log_path) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::fprintf(stderr, "aclrtcCompileProg: cannot run %s\n", args[0]);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace opgen_acl

extern "C" {

inline aclError aclrtcCreateProg(aclrtcProg* prog, const char* src, const char* name, int numHeaders,
                                 const char** headers, const char** includeNames) {
    (void)headers;
    (void)includeNames;
    if (prog == nullptr || src == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT, "aclrtcCreateProg: prog and src must be given");
    }
    if (numHeaders != 0) {
        return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT,
                               "aclrtcCreateProg: numHeaders must be 0 (CANN takes no headers here yet)");
    }
    auto* p = new opgen_acl::RtcProgram();
    p->source = src;
    p->name = name != nullptr ? name : "";
    std::lock_guard<std::mutex> lock(opgen_acl::RtcMutex());
    opgen_acl::RtcPrograms().insert(p);
    *prog = p;
    return ACL_SUCCESS;
}

inline aclError aclrtcDestroyProg(aclrtcProg* prog) {
    if (prog == nullptr) return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT, "aclrtcDestroyProg: prog is null");
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(*prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcDestroyProg", *prog);
    {
        std::lock_guard<std::mutex> lock(opgen_acl::RtcMutex());
        opgen_acl::RtcPrograms().erase(p);
    }
    delete p;
    *prog = nullptr;
    return ACL_SUCCESS;
}

inline aclError aclrtcAddNameExpr(aclrtcProg prog, const char* const nameExpression) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcAddNameExpr", prog);
    if (nameExpression == nullptr || !opgen_acl::ValidNameExpr(nameExpression)) {
        return opgen_acl::Fail(ACL_ERROR_RTC_NAME_EXPR_NOT_VALID,
                               std::string("aclrtcAddNameExpr: '") + (nameExpression ? nameExpression : "(null)") +
                                   "' is not a kernel name (a qualified name, with template arguments if any)");
    }
    p->exprs.emplace_back(nameExpression);
    return ACL_SUCCESS;
}

inline aclError aclrtcCompileProg(aclrtcProg prog, int numOptions, const char** options) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcCompileProg", prog);
    if (numOptions < 0 || (numOptions > 0 && options == nullptr)) {
        return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_OPTION, "aclrtcCompileProg: numOptions and options disagree");
    }
    std::string why;
    std::vector<std::string> argv = opgen_acl::RtcCompiler(&why);
    if (argv.empty()) {
        p->log = "aclrtcCompileProg: " + why + "\n";
        return opgen_acl::Fail(ACL_ERROR_RTC_FAILURE, "aclrtcCompileProg: " + why);
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/opgen-rtc-XXXXXX";
    if (mkdtemp(&dir[0]) == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RTC_FAILURE, "aclrtcCompileProg: cannot make a folder in " + dir);
    }
    std::string exprs;
    for (const std::string& e : p->exprs) exprs += e + "\n";
    if (!opgen_acl::WriteText(dir + "/program.asc", p->source) || !opgen_acl::WriteText(dir + "/name.txt", p->name) ||
        !opgen_acl::WriteText(dir + "/name_exprs.txt", exprs)) {
        opgen_acl::RemoveTree(dir);
        return opgen_acl::Fail(ACL_ERROR_RTC_FAILURE, "aclrtcCompileProg: cannot write the program to " + dir);
    }
    argv.push_back(dir);
    for (int i = 0; i < numOptions; ++i) {
        if (options[i] == nullptr) {
            opgen_acl::RemoveTree(dir);
            return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_OPTION,
                                   "aclrtcCompileProg: option " + std::to_string(i) + " is null");
        }
        argv.emplace_back(options[i]);
    }
    const int status = opgen_acl::RunLogged(argv, dir + "/log.txt");
    p->log = opgen_acl::ReadText(dir + "/log.txt");
    p->compiled = status == 0;
    p->binary = p->compiled ? opgen_acl::ReadText(dir + "/program.so") : std::string();
    p->lowered.clear();
    if (p->compiled) {
        std::istringstream lines(opgen_acl::ReadText(dir + "/lowered.txt"));
        std::string line;
        while (std::getline(lines, line)) {
            const size_t tab = line.find('\t');
            if (tab != std::string::npos) p->lowered.emplace_back(line.substr(0, tab), line.substr(tab + 1));
        }
    }
    opgen_acl::RemoveTree(dir);
    if (!p->compiled || p->binary.empty()) {
        p->compiled = false;
        return opgen_acl::Fail(ACL_ERROR_RTC_COMPILATION,
                               "aclrtcCompileProg: program '" + (p->name.empty() ? std::string("default_program")
                                                                                  : p->name) +
                                   "' did not compile (aclrtcGetCompileLog has the compiler's messages)");
    }
    return ACL_SUCCESS;
}

inline aclError aclrtcGetBinDataSize(aclrtcProg prog, size_t* binDataSizeRet) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcGetBinDataSize", prog);
    if (binDataSizeRet == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT, "aclrtcGetBinDataSize: binDataSizeRet is null");
    }
    if (!p->compiled) {
        return opgen_acl::Fail(ACL_ERROR_RTC_FAILURE, "aclrtcGetBinDataSize: the program is not compiled");
    }
    *binDataSizeRet = p->binary.size();
    return ACL_SUCCESS;
}

inline aclError aclrtcGetBinData(aclrtcProg prog, char* binData) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcGetBinData", prog);
    if (binData == nullptr) return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT, "aclrtcGetBinData: binData is null");
    if (!p->compiled) return opgen_acl::Fail(ACL_ERROR_RTC_FAILURE, "aclrtcGetBinData: the program is not compiled");
    std::copy(p->binary.begin(), p->binary.end(), binData);
    return ACL_SUCCESS;
}

inline aclError aclrtcGetLoweredName(aclrtcProg prog, const char* nameExpression, const char** loweredName) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcGetLoweredName", prog);
    if (nameExpression == nullptr || loweredName == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT,
                               "aclrtcGetLoweredName: nameExpression and loweredName must be given");
    }
    if (!p->compiled) {
        return opgen_acl::Fail(ACL_ERROR_RTC_NO_LOWERED_NAMES_BEFORE_COMPILATION,
                               "aclrtcGetLoweredName: compile the program first (aclrtcCompileProg)");
    }
    for (const auto& entry : p->lowered) {
        if (entry.first == nameExpression) {
            *loweredName = entry.second.c_str();
            return ACL_SUCCESS;
        }
    }
    return opgen_acl::Fail(ACL_ERROR_RTC_NO_NAME_EXPR_AFTER_COMPILATION,
                           std::string("aclrtcGetLoweredName: '") + nameExpression +
                               "' was not added with aclrtcAddNameExpr before the compile");
}

inline aclError aclrtcGetCompileLogSize(aclrtcProg prog, size_t* logSizeRet) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcGetCompileLogSize", prog);
    if (logSizeRet == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT, "aclrtcGetCompileLogSize: logSizeRet is null");
    }
    *logSizeRet = p->log.size() + 1;  // with its terminating NUL
    return ACL_SUCCESS;
}

inline aclError aclrtcGetCompileLog(aclrtcProg prog, char* log) {
    opgen_acl::RtcProgram* p = opgen_acl::FindProgram(prog);
    if (p == nullptr) return opgen_acl::BadProgram("aclrtcGetCompileLog", prog);
    if (log == nullptr) return opgen_acl::Fail(ACL_ERROR_RTC_INVALID_INPUT, "aclrtcGetCompileLog: log is null");
    std::copy(p->log.begin(), p->log.end(), log);
    log[p->log.size()] = '\0';
    return ACL_SUCCESS;
}

}  // extern "C"
