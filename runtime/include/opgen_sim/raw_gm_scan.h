// opgen NPU simulator: may this program store to memory through a raw pointer (a `__gm__ T*`
// made from a GM_ADDR argument, a pointer or a non-const reference) behind the simulator's back?
// Deferred copies (deferred.h) read their GM source late, so a store through such a pointer
// after a DataCopy of the same bytes would reach the copied data. The simulator cannot see those
// stores, so it reads the program's own source (the scan follows its #include "..." files) and
// defers nothing if the source holds any store through a pointer, a subscript of something not
// declared as an array, a store to a function's result, a non-const reference bound to an
// lvalue, or a memcpy-like call. A source it cannot read (moved, or a quoted include it cannot
// find) counts as storing. The rule is syntactic and errs on the side of not deferring, which
// only costs speed. opgen's build scans each unit's source when it compiles it and force-includes
// the verdict (source_verdict.h), so a cached kernel keeps the verdict of the code it holds,
// wherever its source went since; a unit compiled without one registers its __BASE_FILE__,
// read at the program's first launch.
#pragma once

#include <cctype>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "opgen_sim/outline.h"

namespace opgen_sim {

inline std::vector<std::string>& RegisteredSources() {
    static std::vector<std::string> files;
    return files;
}

inline std::mutex& RegisteredSourcesMutex() {
    static std::mutex mu;
    return mu;
}

OPGEN_SIM_OUTLINE bool RegisterSource(const char* path)
#if OPGEN_SIM_OUTLINE_BODIES
{
    std::lock_guard<std::mutex> lock(RegisteredSourcesMutex());
    RegisteredSources().emplace_back(path);
    return true;
}
#else
;
#endif

#if !OPGEN_SIM_KERNEL_UNIT
namespace scan {

inline std::string DirOf(const std::string& p) {
    const size_t s = p.rfind('/');
    return s == std::string::npos ? std::string(".") : p.substr(0, s);
}

inline bool ReadFile(const std::string& p, std::string& out) {
    std::ifstream f(p, std::ios::binary);
    if (!f) return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
}

// Tokens of a source without comments, literals and preprocessor lines; quoted includes go to
// `includes`.
inline std::vector<std::string> Tokens(const std::string& s, std::vector<std::string>& includes) {
    std::vector<std::string> out;
    size_t i = 0;
    const size_t n = s.size();
    bool line_start = true;
    static const char* const kPunct[] = {"<<=", ">>=", "->", "::", "==", "!=", "<=", ">=", "&&",
                                         "||",  "++",  "--", "+=", "-=", "*=", "/=", "%=", "&=",
                                         "|=",  "^=",  "<<", ">>"};
    while (i < n) {
        const char c = s[i];
        if (c == '\n') {
            line_start = true;
            ++i;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '#' && line_start) {  // a preprocessor line (with its continuations)
            size_t e = i;
            while (e < n && !(s[e] == '\n' && s[e - 1] != '\\')) ++e;
            const std::string line = s.substr(i, e - i);
            const size_t inc = line.find("include");
            const size_t q = line.find('"');
            if (inc != std::string::npos && q != std::string::npos) {
                const size_t q2 = line.find('"', q + 1);
                if (q2 != std::string::npos) includes.push_back(line.substr(q + 1, q2 - q - 1));
            }
            i = e;
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            const size_t e = s.find("*/", i + 2);
            i = e == std::string::npos ? n : e + 2;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t e = i + 1;
            while (e < n && s[e] != c) e += s[e] == '\\' ? 2 : 1;
            out.emplace_back(c == '"' ? "\"\"" : "''");
            i = e + 1;
            continue;
        }
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            size_t e = i;
            while (e < n && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_' || s[e] == '.')) {
                if (s[e] == '.' && !std::isdigit(static_cast<unsigned char>(c))) break;
                ++e;
            }
            out.push_back(s.substr(i, e - i));
            i = e;
            continue;
        }
        bool matched = false;
        for (const char* p : kPunct) {
            const size_t len = std::strlen(p);
            if (s.compare(i, len, p) == 0) {
                out.emplace_back(p);
                i += len;
                matched = true;
                break;
            }
        }
        if (!matched) out.emplace_back(1, c);
        (void)matched;
        if (!matched) ++i;
    }
    return out;
}

inline bool IsIdent(const std::string& t) {
    return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}

inline bool IsAssign(const std::string& t) {
    return t == "=" || t == "+=" || t == "-=" || t == "*=" || t == "/=" || t == "%=" ||
           t == "&=" || t == "|=" || t == "^=" || t == "<<=" || t == ">>=";
}

// The tokens [b, e) of the expression that ends just before token `at`.
inline size_t ExprStart(const std::vector<std::string>& t, size_t at) {
    size_t i = at;
    while (i > 0) {
        const std::string& p = t[i - 1];
        if (p == ")" || p == "]") {
            const std::string open = p == ")" ? "(" : "[";
            int depth = 0;
            size_t j = i - 1;
            for (;; --j) {
                if (t[j] == p) ++depth;
                if (t[j] == open && --depth == 0) break;
                if (j == 0) return 0;
            }
            if (p == ")" && j > 0 &&
                (t[j - 1] == "if" || t[j - 1] == "while" || t[j - 1] == "for" || t[j - 1] == "switch")) {
                return i;
            }
            i = j;
            continue;
        }
        if (p == ";" || p == "{" || p == "}" || p == "," || p == "(" || p == "[" || p == "?" ||
            p == ":" || p == "else" || p == "do" || p == "return" || IsAssign(p) || p == "&&" ||
            p == "||") {
            return i;
        }
        --i;
    }
    return 0;
}

// Whether the store target t[b, e) may write through a pointer the simulator cannot see.
inline bool UnsafeTarget(const std::vector<std::string>& t, size_t b, size_t e,
                         const std::set<std::string>& arrays) {
    if (b >= e) return false;
    if (b + 2 <= e && t[b] == "this" && t[b + 1] == "->") b += 2;
    if (b >= e) return false;
    if (t[b] == "*" || (t[b] == "(" && b + 1 < e && t[b + 1] == "*")) return true;
    // A declaration: two names in a row (`float buf[8]`, `int32_t n`), or a name after '>'.
    for (size_t i = b; i + 1 < e; ++i) {
        if (t[i] == "[" || t[i] == "(") break;
        if ((IsIdent(t[i]) || t[i] == ">" || t[i] == "*" || t[i] == "&") && IsIdent(t[i + 1]) &&
            t[i] != "return") {
            return false;
        }
    }
    if (t[e - 1] == ")") return true;  // a function's result (a reference)
    for (size_t i = b; i < e; ++i) {
        if (t[i] == "->") return true;
        if (t[i] == "[") {
            if (i == b || !arrays.count(t[i - 1])) return true;
            return false;
        }
    }
    return false;
}

inline bool UnsafeTokens(const std::vector<std::string>& t, const std::set<std::string>& arrays) {
    static const std::set<std::string> kCopies = {"memcpy",   "memmove", "memset",  "memcpy_s",
                                                  "memset_s", "memmove_s", "copy",  "copy_n",
                                                  "fill",     "fill_n",  "strcpy",  "bcopy"};
    for (size_t i = 0; i < t.size(); ++i) {
        const std::string& x = t[i];
        if (kCopies.count(x) && i + 1 < t.size() && t[i + 1] == "(") return true;
        // A non-const reference bound to something: `T& r = ...`, `for (auto& v : ...)`.
        if (x == "&" && i + 2 < t.size() && IsIdent(t[i + 1]) && (t[i + 2] == "=" || t[i + 2] == ":") &&
            i > 0 && (IsIdent(t[i - 1]) || t[i - 1] == ">")) {
            bool is_const = false;
            for (size_t j = i; j > 0; --j) {
                const std::string& p = t[j - 1];
                if (p == ";" || p == "{" || p == "}" || p == "(" || p == ",") break;
                if (p == "const") is_const = true;
            }
            if (!is_const) return true;
        }
        if (IsAssign(x)) {
            if (i > 0 && (t[i - 1] == "operator" || t[i - 1] == "[")) continue;
            if (UnsafeTarget(t, ExprStart(t, i), i, arrays)) return true;
        } else if (x == "++" || x == "--") {
            if (i > 0 && (IsIdent(t[i - 1]) || t[i - 1] == "]" || t[i - 1] == ")") &&
                t[i - 1] != "return") {
                if (UnsafeTarget(t, ExprStart(t, i), i, arrays)) return true;
            } else {
                size_t e = i + 1;
                int depth = 0;
                while (e < t.size()) {
                    const std::string& p = t[e];
                    if (p == "(" || p == "[") ++depth;
                    if ((p == ")" || p == "]") && depth-- == 0) break;
                    if (depth == 0 && (p == ";" || p == "," || IsAssign(p))) break;
                    ++e;
                }
                if (UnsafeTarget(t, i + 1, e, arrays)) return true;
            }
        }
    }
    return false;
}

// Names declared as arrays: `T name[` after a type name (or '>' / '*').
inline void CollectArrays(const std::vector<std::string>& t, std::set<std::string>& arrays) {
    for (size_t i = 1; i + 1 < t.size(); ++i) {
        if (IsIdent(t[i]) && t[i + 1] == "[" &&
            ((IsIdent(t[i - 1]) && t[i - 1] != "return" && t[i - 1] != "delete") || t[i - 1] == ">")) {
            arrays.insert(t[i]);
        }
    }
}

// Whether the sources `roots` (and the quoted includes they reach) hold a store the simulator
// cannot see; a file it cannot read or a quoted include it cannot find counts as one.
inline bool StoresRawPointers(const std::vector<std::string>& roots) {
    const std::string sim_root = DirOf(DirOf(__FILE__));  // include/opgen_sim/..
    std::set<std::string> seen;
    std::vector<std::string> todo = roots;
    std::vector<std::vector<std::string>> all;
    std::set<std::string> arrays;
    while (!todo.empty()) {
        const std::string p = todo.back();
        todo.pop_back();
        if (!seen.insert(p).second) continue;
        std::string text;
        if (!ReadFile(p, text)) return true;
        std::vector<std::string> includes;
        all.push_back(Tokens(text, includes));
        CollectArrays(all.back(), arrays);
        for (const std::string& inc : includes) {
            const std::string local = inc.size() > 0 && inc[0] == '/' ? inc : DirOf(p) + "/" + inc;
            std::ifstream probe(local);
            if (probe) {
                todo.push_back(local);
                continue;
            }
            std::ifstream sim(sim_root + "/" + inc);
            if (!sim) return true;  // a header the scan cannot find
        }
    }
    for (const auto& tokens : all) {
        if (UnsafeTokens(tokens, arrays)) return true;
    }
    return false;
}

}  // namespace scan
#endif  // !OPGEN_SIM_KERNEL_UNIT

// Verdicts given at compile time (source_verdict.h, which opgen's build force-includes from this
// scan of the unit's source while the source is there): true for a unit that stores.
inline std::vector<bool>& RegisteredVerdicts() {
    static std::vector<bool> verdicts;
    return verdicts;
}

OPGEN_SIM_OUTLINE bool RegisterVerdict(bool stores)
#if OPGEN_SIM_OUTLINE_BODIES
{
    std::lock_guard<std::mutex> lock(RegisteredSourcesMutex());
    RegisteredVerdicts().push_back(stores);
    return true;
}
#else
;
#endif

// The verdict for this program, computed at its first launch: from the verdicts its units were
// compiled with, and a scan of the sources of units compiled without one.
#if !OPGEN_SIM_KERNEL_UNIT
inline bool ProgramStoresRawPointers() {
    static const bool verdict = [] {
        std::vector<std::string> roots;
        std::vector<bool> given;
        {
            std::lock_guard<std::mutex> lock(RegisteredSourcesMutex());
            roots = RegisteredSources();
            given = RegisteredVerdicts();
        }
        if (roots.empty() && given.empty()) return true;
        for (const bool stores : given) {
            if (stores) return true;
        }
        return !roots.empty() && scan::StoresRawPointers(roots);
    }();
    return verdict;
}
#endif  // !OPGEN_SIM_KERNEL_UNIT

}  // namespace opgen_sim

// Each translation unit that includes the simulator registers its main source file (not the
// simulator runtime object's own unit, OPGEN_SIM_RUNTIME_UNIT: it holds no kernel code). The
// precompiled header (OPGEN_SIM_PRECOMPILED) leaves it out, since __BASE_FILE__ would be frozen
// to the header's own name there: opgen_sim/register_source.h, force-included after it, does it
// in the kernel's unit.
#if !defined(OPGEN_SIM_RUNTIME_UNIT) && !defined(OPGEN_SIM_PRECOMPILED) && \
    !defined(OPGEN_SIM_SOURCE_VERDICT_GIVEN)
namespace {
[[maybe_unused]] const bool opgen_sim_source_registered = ::opgen_sim::RegisterSource(__BASE_FILE__);
}
#endif
