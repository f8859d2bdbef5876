// opgen NPU simulator: faults inside a kernel, the kernel line of an error, launch timeouts and
// interrupts.
//
// - A signal a kernel raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL) ends only its block: a handler
//   on the thread's alternate stack jumps back into RunBlock (launch.h), which records the signal,
//   the faulting address and the kernel line as the block's error. The process goes on.
// - The kernel line of an error: Fail (core.h) and the fault handler keep the return addresses;
//   KernelSite resolves them with addr2line (libraries are built with line tables, -g1) and names
//   the innermost frame outside the simulator's headers, i.e. the kernel's own file and line.
// - A watchdog thread (one per kernel library, started by the first launch) stops a launch that
//   runs longer than OPGEN_SIM_TIMEOUT seconds (default 600), or that is interrupted by SIGINT
//   (Ctrl-C) once it has run for a while: no block starts any more, and the blocks still running
//   are sent kCancelSignal, whose handler jumps out of the kernel the same way.
//
// Every kernel library carries its own copy of this header. The per-thread state the handlers
// need lives at the bottom of the thread's alternate signal stack (ThreadGuard), where the
// handler of whichever library is installed finds it, so libraries share one set of handlers.
#pragma once

#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core.h"
#include "crosscore.h"

extern char** environ;

namespace opgen_sim {

// ---- the kernel line of an error ------------------------------------------------------------

// The directory of the simulator's headers, as the compiler saw it (frames there are skipped).
inline std::string SimIncludeDir() {
    std::string f = __FILE__;  // <include>/opgen_sim/faults.h
    for (int i = 0; i < 2; ++i) {
        const size_t slash = f.find_last_of('/');
        f = slash == std::string::npos ? std::string() : f.substr(0, slash);
    }
    return f;
}

inline bool IsSimulatorSource(const std::string& file) {
    static const std::string inc = SimIncludeDir();
    if (file.empty() || file == "??") return true;
    if (!inc.empty() && file.compare(0, inc.size() + 1, inc + "/") == 0) return true;
    // the C++ library's and the compiler's own headers
    return file.compare(0, 5, "/usr/") == 0 &&
           (file.find("/include/") != std::string::npos || file.find("/gcc/") != std::string::npos);
}

// This library's file name and load address (dladdr of a function defined here).
inline bool ThisLibrary(std::string& path, uintptr_t& base) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&IsSimulatorSource), &info) == 0 || info.dli_fname == nullptr) {
        return false;
    }
    path = info.dli_fname;
    base = reinterpret_cast<uintptr_t>(info.dli_fbase);
    return true;
}

// Runs `addr2line -i -e lib offsets...` and returns its output (empty if it cannot run).
inline std::string RunAddr2line(const std::string& lib, const std::vector<uintptr_t>& offsets) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> words = {"addr2line", "-i", "-e", lib};
    char hex[32];
    for (uintptr_t off : offsets) {
        std::snprintf(hex, sizeof(hex), "0x%lx", static_cast<unsigned long>(off));
        words.emplace_back(hex);
    }
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(&w[0]);
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, "addr2line", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    std::string out;
    if (rc == 0) {
        char buf[4096];
        for (;;) {
            const ssize_t n = read(fds[0], buf, sizeof(buf));
            if (n > 0) {
                out.append(buf, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                break;
            }
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    close(fds[0]);
    return out;
}

// " at <file>:<line>" for the innermost frame of `pcs` outside the simulator's headers, or "".
// exact: pcs[0] is the faulting instruction itself (the others are return addresses).
inline std::string KernelSite(void* const* pcs, int32_t npcs, bool exact) {
    std::string lib;
    uintptr_t base = 0;
    if (npcs <= 0 || !ThisLibrary(lib, base)) return {};
    std::vector<uintptr_t> offsets;
    for (int32_t i = 0; i < npcs; ++i) {
        Dl_info info{};
        if (dladdr(pcs[i], &info) == 0 || reinterpret_cast<uintptr_t>(info.dli_fbase) != base) continue;
        uintptr_t off = reinterpret_cast<uintptr_t>(pcs[i]) - base;
        if (!(exact && i == 0) && off > 0) off -= 1;  // inside the call instruction
        offsets.push_back(off);
    }
    if (offsets.empty()) return {};
    static std::mutex mu;
    static std::map<std::vector<uintptr_t>, std::string> cache;
    std::lock_guard<std::mutex> lock(mu);
    const auto hit = cache.find(offsets);
    if (hit != cache.end()) return hit->second;
    // -i prints each address's inlined frames innermost first, one `file:line` a line
    const std::string out = RunAddr2line(lib, offsets);
    std::string site;
    size_t pos = 0;
    while (pos < out.size()) {
        size_t end = out.find('\n', pos);
        if (end == std::string::npos) end = out.size();
        std::string line = out.substr(pos, end - pos);
        pos = end + 1;
        const size_t d = line.find(" (discriminator");
        if (d != std::string::npos) line.resize(d);
        const size_t colon = line.rfind(':');
        if (colon == std::string::npos) continue;
        const std::string file = line.substr(0, colon);
        const std::string row = line.substr(colon + 1);
        if (row.empty() || row == "?" || row == "0" || IsSimulatorSource(file)) continue;
        site = " at " + file + ":" + row;
        break;
    }
    cache.emplace(offsets, site);
    return site;
}

// The kernel line of a rule violation (the return addresses Fail kept).
inline std::string FailSite(const SimError& e) {
    if (e.kind == ErrorKind::KernelAssert) return {};  // the message names the line already
    return KernelSite(e.pcs, e.npcs, false);
}

// ---- per-thread guard -----------------------------------------------------------------------

constexpr uint64_t kGuardMagic = 0x6f7067656e475231ull;  // "opgenGR1": layout version 1
constexpr size_t kAltStackBytes = 256 * 1024;

// Lives at the bottom of the thread's alternate signal stack (the stack grows down from its top).
struct ThreadGuard {
    uint64_t magic;
    sigjmp_buf* volatile jump;          // set while a block runs a kernel on this thread
    const std::atomic<bool>* cancel;    // the running block's launch: stop when set
    volatile sig_atomic_t sig;          // what ended the block
    int code;
    void* addr;
    void* pcs[kMaxFailPcs];
    int32_t npcs;
};

inline int CancelSignal() { return SIGRTMAX - 3; }

inline ThreadGuard* GuardOfThisThread() {
    stack_t cur{};
    if (sigaltstack(nullptr, &cur) != 0 || (cur.ss_flags & SS_DISABLE) != 0 || cur.ss_sp == nullptr ||
        cur.ss_size < sizeof(ThreadGuard)) {
        return nullptr;
    }
    auto* g = static_cast<ThreadGuard*>(cur.ss_sp);
    return g->magic == kGuardMagic ? g : nullptr;
}

// The alternate stack this library gave the thread; unmapped when the thread ends (threads
// come and go: cross-core helpers, framework pools), after the stack is switched off.
struct OwnedAltStack {
    ThreadGuard* g = nullptr;
    ~OwnedAltStack() {
        if (g == nullptr) return;
        if (GuardOfThisThread() == g) {
            stack_t off{};
            off.ss_flags = SS_DISABLE;
            sigaltstack(&off, nullptr);
        }
        munmap(g, kAltStackBytes);
    }
};

// This thread's guard; gives the thread an alternate signal stack holding one if it has none
// of ours (an existing foreign one, e.g. Python's faulthandler's, is replaced: any stack serves
// its handler).
inline ThreadGuard* ThreadGuardEnsure() {
    thread_local OwnedAltStack mine;
    ThreadGuard* g = GuardOfThisThread();
    if (g != nullptr) return g;
    if (mine.g == nullptr) {
        void* mem = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
        if (mem == MAP_FAILED) return nullptr;
        mine.g = new (mem) ThreadGuard{};
        mine.g->magic = kGuardMagic;
    }
    stack_t ss{};
    ss.ss_sp = mine.g;
    ss.ss_size = kAltStackBytes;
    if (sigaltstack(&ss, nullptr) != 0) return nullptr;
    return mine.g;
}

// ThreadGuardEnsure once per thread: pool threads keep their stack (the launching thread, whose
// stack others may replace, is checked at every launch by WatchScope).
inline ThreadGuard*& CachedGuardSlot() {
    thread_local ThreadGuard* g = nullptr;
    return g;
}

inline ThreadGuard* ThreadGuardCached() {
    ThreadGuard*& g = CachedGuardSlot();
    if (g == nullptr) g = ThreadGuardEnsure();
    return g;
}

// ---- the signal handlers --------------------------------------------------------------------

// SIGABRT: abort() in a kernel (std::abort, or the C library's assert where a later #include
// <cassert> replaced the kernel's own): the block ends with a KernelAssert error, as a trap ends
// a core's task on the device; outside a kernel it takes its usual course.
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// The handlers of every opgen library are marked by these two signals in sa_mask, so a library
// finds one already installed (by another library) and does not stack its own on top.
inline void MarkMask(sigset_t& set) {
    sigemptyset(&set);
    sigaddset(&set, SIGRTMAX);
    sigaddset(&set, SIGRTMAX - 1);
}

inline bool IsOpgenHandler(const struct sigaction& sa) {
    return (sa.sa_flags & SA_SIGINFO) != 0 && sigismember(&sa.sa_mask, SIGRTMAX) == 1 &&
           sigismember(&sa.sa_mask, SIGRTMAX - 1) == 1;
}

inline struct sigaction* PreviousFaultActions() {
    static struct sigaction prev[sizeof(kFaultSignals) / sizeof(kFaultSignals[0])];
    return prev;
}

inline void* ContextPc(void* uctx) {
    if (uctx == nullptr) return nullptr;
    auto* uc = static_cast<ucontext_t*>(uctx);
#if defined(__x86_64__)
    return reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return reinterpret_cast<void*>(uc->uc_mcontext.pc);
#else
    (void)uc;
    return nullptr;
#endif
}

// Ends the block running on this thread: keeps what happened, jumps back into RunBlock.
[[noreturn]] inline void LeaveBlock(ThreadGuard* g, int sig, siginfo_t* info, void* uctx) {
    sigjmp_buf* jump = g->jump;
    g->jump = nullptr;
    g->sig = sig;
    g->code = info != nullptr ? info->si_code : 0;
    g->addr = info != nullptr ? info->si_addr : nullptr;
    g->npcs = 0;
    void* pc = ContextPc(uctx);
    if (pc != nullptr) {
        void* frames[kMaxFailPcs + 8];
        const int n = backtrace(frames, kMaxFailPcs + 8);
        g->pcs[g->npcs++] = pc;
        int from = n;  // the frames below the interrupted one, when the unwinder got through
        for (int i = 0; i < n; ++i) {
            if (frames[i] == pc) {
                from = i + 1;
                break;
            }
        }
        for (int i = from; i < n && g->npcs < kMaxFailPcs; ++i) g->pcs[g->npcs++] = frames[i];
    }
    siglongjmp(*jump, sig);
}

inline void OnFault(int sig, siginfo_t* info, void* uctx) {
    ThreadGuard* g = GuardOfThisThread();
    if (g != nullptr && g->jump != nullptr) LeaveBlock(g, sig, info, uctx);
    // Not inside a kernel: what was installed before us decides.
    size_t i = 0;
    while (i + 1 < sizeof(kFaultSignals) / sizeof(kFaultSignals[0]) && kFaultSignals[i] != sig) ++i;
    const struct sigaction& prev = PreviousFaultActions()[i];
    if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
        prev.sa_sigaction(sig, info, uctx);
        return;
    }
    if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
        prev.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);  // the default action: returning re-runs the faulting instruction
    if (info == nullptr || info->si_code <= 0) raise(sig);
}

inline void OnCancel(int sig, siginfo_t* info, void* uctx) {
    ThreadGuard* g = GuardOfThisThread();
    if (g != nullptr && g->jump != nullptr && g->cancel != nullptr &&
        g->cancel->load(std::memory_order_relaxed)) {
        LeaveBlock(g, sig, info, uctx);
    }
}

// Installs the fault and cancel handlers unless an opgen library's are installed (cheap: one
// sigaction query per launch, which also finds handlers replaced since, e.g. by faulthandler).
inline void EnsureFaultHandlers() {
    struct sigaction cur{};
    if (sigaction(SIGSEGV, nullptr, &cur) == 0 && IsOpgenHandler(cur)) return;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (sigaction(SIGSEGV, nullptr, &cur) == 0 && IsOpgenHandler(cur)) return;
    void* warm[2];
    backtrace(warm, 2);  // loads the unwinder now, not inside a handler
    // The handlers and the watchdog run this library's code: keep it mapped for good, even if
    // a host dlcloses it.
    std::string self;
    uintptr_t base = 0;
    if (ThisLibrary(self, base)) dlopen(self.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    struct sigaction sa{};
    sa.sa_sigaction = &OnFault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    MarkMask(sa.sa_mask);
    for (size_t i = 0; i < sizeof(kFaultSignals) / sizeof(kFaultSignals[0]); ++i) {
        sigaction(kFaultSignals[i], &sa, &PreviousFaultActions()[i]);
    }
    sa.sa_sigaction = &OnCancel;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigaction(CancelSignal(), &sa, nullptr);
}

inline const char* SignalName(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        case SIGABRT: return "SIGABRT";
        default: return "signal";
    }
}

// ---- one block: armed while its kernel runs ------------------------------------------------

struct LaunchWatch;

// RunBlock (launch.h):
//     BlockGuard guard(job.watch, b);
//     if (sigsetjmp(guard.jump, 0) != 0) { record guard's error }
//     else try { BlockGuard::Armed armed(guard); <the kernel> } catch ...
struct BlockGuard {
    sigjmp_buf jump;
    ThreadGuard* g = nullptr;
    LaunchWatch& watch;
    int32_t block;

    BlockGuard(LaunchWatch& w, int32_t b);
    ~BlockGuard();
    // Armed while the kernel runs: a fault or a cancel then ends the block at sigsetjmp.
    struct Armed {
        BlockGuard& bg;
        explicit Armed(BlockGuard& guard) : bg(guard) {
            if (bg.g != nullptr) bg.g->jump = &bg.jump;
        }
        ~Armed() {
            if (bg.g != nullptr) bg.g->jump = nullptr;
        }
        Armed(const Armed&) = delete;
        Armed& operator=(const Armed&) = delete;
    };
    bool Cancelled() const { return g != nullptr && g->sig == CancelSignal(); }
    ErrorKind Kind() const;
    const char* Api() const { return Cancelled() ? "launch" : SignalName(g->sig); }
    std::string Message(const Core& core) const;
};

// ---- launches: the watchdog ---------------------------------------------------------------

enum CancelWhy : int32_t { kNotCancelled = 0, kCancelTimeout = 1, kCancelInterrupt = 2 };

// The watchdog's clock: CLOCK_MONOTONIC_COARSE, whose reads cost a fraction of a precise clock's
// (a launch reads it once) at a resolution of a few milliseconds, far below the watchdog's 100 ms
// look and any timeout.
struct CoarseClock {
    using duration = std::chrono::nanoseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<CoarseClock>;
    static constexpr bool is_steady = true;
    static time_point now() noexcept {
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
        return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
    }
};

// The part of a launch the watchdog sees; a member of Job (launch.h).
struct LaunchWatch {
    LaunchSync* sync = nullptr;
    int32_t block_dim = 0;
    BlockAtomics<uint64_t, 16> threads;  // pthread_t running each block, or 0
    std::mutex threads_mu;  // a block's thread is cleared under it: never signalled once gone
    CoarseClock::time_point start;
    double timeout_s = -1;  // read by the watchdog at its first look
    std::atomic<int32_t> why{kNotCancelled};
    std::string summary;  // the blocks still running when cancelled (set before `why`)
    LaunchWatch* next = nullptr;
    LaunchWatch* prev = nullptr;
};

inline double TimeoutSeconds() {
    const char* env = std::getenv("OPGEN_SIM_TIMEOUT");
    if (env == nullptr || env[0] == '\0') return 600.0;
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end == env) return 600.0;
    return v > 0 ? v : std::numeric_limits<double>::infinity();  // 0: no limit
}

class Watchdog {
public:
    static Watchdog& Get() {
        static Watchdog* w = new Watchdog();  // never destroyed: its thread may outlive statics
        return *w;
    }

    void Add(LaunchWatch& w) {
        std::lock_guard<std::mutex> lock(mu_);
        w.prev = nullptr;
        w.next = head_;
        if (head_ != nullptr) head_->prev = &w;
        head_ = &w;
        active_.store(true, std::memory_order_relaxed);
        if (!started_) {
            started_ = true;
            std::thread(&Watchdog::Loop, this).detach();
        } else if (sleeping_) {
            cv_.notify_one();
        }
    }

    void Remove(LaunchWatch& w) {
        bool unhook = false;
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (w.prev != nullptr) w.prev->next = w.next; else head_ = w.next;
            if (w.next != nullptr) w.next->prev = w.prev;
            unhook = head_ == nullptr && hooked_;
            if (head_ == nullptr) {
                interrupted_.store(false);
                active_.store(false, std::memory_order_relaxed);
            }
        }
        if (unhook) UnhookSigint();
    }

    // Called by the SIGINT handler (async-signal-safe).
    bool NoteInterrupt() {
        if (!active_.load(std::memory_order_relaxed)) return false;
        interrupted_.store(true);
        return true;
    }

    struct sigaction prev_sigint{};

private:
    static constexpr auto kPoll = std::chrono::milliseconds(100);
    static constexpr auto kHookAfter = std::chrono::milliseconds(100);

    void Loop() {
        std::unique_lock<std::mutex> lock(mu_);
        auto idle_since = CoarseClock::now();
        for (;;) {
            const auto now = CoarseClock::now();
            if (head_ == nullptr) {
                if (now - idle_since > std::chrono::seconds(30)) {  // long idle: sleep until a launch
                    sleeping_ = true;
                    cv_.wait(lock, [&] { return head_ != nullptr; });
                    sleeping_ = false;
                    continue;
                }
            } else {
                idle_since = now;
                Check(now);
            }
            cv_.wait_for(lock, kPoll);
        }
    }

    void Check(CoarseClock::time_point now) {
        const bool interrupt = interrupted_.exchange(false);
        for (LaunchWatch* w = head_; w != nullptr; w = w->next) {
            if (w->timeout_s < 0) w->timeout_s = TimeoutSeconds();
            const int32_t why = w->why.load();
            if (why != kNotCancelled) {
                Signal(*w);  // a block that did not stop yet: again
                continue;
            }
            const double ran = std::chrono::duration<double>(now - w->start).count();
            if (interrupt) {
                Cancel(*w, kCancelInterrupt, ran);
            } else if (ran >= w->timeout_s) {
                Cancel(*w, kCancelTimeout, ran);
            } else if (now - w->start >= kHookAfter && !hooked_) {
                HookSigint();
            }
        }
    }

    void Cancel(LaunchWatch& w, CancelWhy why, double ran) {
        LaunchSync& s = *w.sync;
        std::string running, done;
        int32_t nrunning = 0, nfinished = 0, nunstarted = 0;
        for (int32_t b = 0; b < w.block_dim; ++b) {
            const uint8_t st = s.state[b].load(std::memory_order_acquire);
            if (st == kBlockRunning) {
                running += (nrunning++ ? ", " : "") + std::to_string(b);
            } else if (st == kBlockUnstarted) {
                ++nunstarted;
            } else {
                ++nfinished;
            }
        }
        char secs[64];
        std::snprintf(secs, sizeof(secs), "%g", why == kCancelTimeout ? w.timeout_s : ran);
        w.summary = (why == kCancelTimeout
                         ? std::string("the launch ran longer than ") + secs +
                               " s (OPGEN_SIM_TIMEOUT) and was stopped"
                         : std::string("the launch was interrupted (SIGINT) after ") + secs + " s") +
                    ": blockDim " + std::to_string(w.block_dim) + ", blocks still running: " +
                    (nrunning ? running : std::string("none")) + " (" + std::to_string(nfinished) +
                    " ended, " + std::to_string(nunstarted) + " not started)";
        s.cancel_reason = why == kCancelTimeout ? "the launch timed out (OPGEN_SIM_TIMEOUT)"
                                                : "the launch was interrupted (SIGINT)";
        w.why.store(why);
        s.cancel.store(true);
        {
            std::lock_guard<std::mutex> lock(s.mu);
            WakeAll(s);
        }
        Signal(w);
    }

    // Sends kCancelSignal to the threads of the blocks still running, except blocks parked in a
    // cross-core wait: those see `cancel` themselves (crosscore.h).
    void Signal(LaunchWatch& w) {
        LaunchSync& s = *w.sync;
        std::lock_guard<std::mutex> lock(s.mu);
        for (int32_t b = 0; b < w.block_dim; ++b) {
            std::lock_guard<std::mutex> tl(w.threads_mu);
            const uint64_t t = w.threads[b].load();
            if (t == 0) continue;
            bool waiting = false;
            for (Waiter* x = s.waiters; x != nullptr; x = x->next) waiting |= x->block == b;
            if (!waiting) pthread_kill(static_cast<pthread_t>(t), CancelSignal());
        }
    }

    static void OnSigint(int sig, siginfo_t* info, void* uctx);

    void HookSigint() {
        struct sigaction cur{};
        if (sigaction(SIGINT, nullptr, &cur) != 0) return;
        if (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN) return;  // nothing to chain to
        if ((cur.sa_flags & SA_SIGINFO) != 0 && cur.sa_sigaction == &Watchdog::OnSigint) {
            hooked_ = true;
            return;
        }
        struct sigaction sa{};
        sa.sa_sigaction = &Watchdog::OnSigint;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        MarkMask(sa.sa_mask);
        prev_sigint = cur;
        if (sigaction(SIGINT, &sa, nullptr) == 0) hooked_ = true;
    }

    void UnhookSigint() {
        std::lock_guard<std::mutex> lock(mu_);
        if (!hooked_ || head_ != nullptr) return;
        struct sigaction cur{};
        hooked_ = false;
        // restore only what we replaced; a handler installed over ours since stays, and chains
        if (sigaction(SIGINT, nullptr, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) != 0 &&
            cur.sa_sigaction == &Watchdog::OnSigint) {
            sigaction(SIGINT, &prev_sigint, nullptr);
        }
    }

    std::mutex mu_;
    std::condition_variable cv_;
    LaunchWatch* head_ = nullptr;
    bool started_ = false;
    bool sleeping_ = false;
    bool hooked_ = false;
    std::atomic<bool> active_{false};
    std::atomic<bool> interrupted_{false};
};

// SIGINT while a launch of this library runs: the watchdog stops it; the previous handler (for a
// Python process, the interpreter's: KeyboardInterrupt) runs too.
inline void Watchdog::OnSigint(int sig, siginfo_t* info, void* uctx) {
    thread_local int depth = 0;
    if (depth > 0) return;
    ++depth;
    Watchdog& w = Get();
    w.NoteInterrupt();
    const struct sigaction& prev = w.prev_sigint;
    if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
        prev.sa_sigaction(sig, info, uctx);
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
        prev.sa_handler(sig);
    }
    --depth;
}

// Registers a launch with the watchdog for the time RunJob runs it.
struct WatchScope {
    LaunchWatch& w;
    WatchScope(LaunchWatch& watch, LaunchSync& sync, int32_t block_dim) : w(watch) {
        // The handlers and this thread's alternate stack may have been replaced since the last
        // launch (e.g. faulthandler.enable()): looked at again 20 times a second at most, which
        // keeps the two system calls off the cost of back-to-back small launches.
        const auto now = CoarseClock::now();
        thread_local CoarseClock::time_point checked{};
        if (now - checked > std::chrono::milliseconds(50) || CachedGuardSlot() == nullptr) {
            EnsureFaultHandlers();
            CachedGuardSlot() = ThreadGuardEnsure();
            checked = now;
        }
        w.sync = &sync;
        w.block_dim = block_dim;
        w.threads.reset(static_cast<size_t>(block_dim));
        w.start = now;
        Watchdog::Get().Add(w);
    }
    ~WatchScope() { Watchdog::Get().Remove(w); }
    WatchScope(const WatchScope&) = delete;
    WatchScope& operator=(const WatchScope&) = delete;
};

inline BlockGuard::BlockGuard(LaunchWatch& w, int32_t b) : watch(w), block(b) {
    g = ThreadGuardCached();
    if (g != nullptr) {
        g->sig = 0;
        g->npcs = 0;
        g->cancel = w.sync != nullptr ? &w.sync->cancel : nullptr;
    }
    if (w.threads) w.threads[b].store(static_cast<uint64_t>(pthread_self()));
}

inline BlockGuard::~BlockGuard() {
    if (watch.threads) {
        std::lock_guard<std::mutex> lock(watch.threads_mu);
        watch.threads[block].store(0);
    }
    if (g != nullptr) {
        g->jump = nullptr;
        g->cancel = nullptr;
    }
}

inline ErrorKind BlockGuard::Kind() const {
    if (!Cancelled()) return g->sig == SIGABRT ? ErrorKind::KernelAssert : ErrorKind::KernelFault;
    return watch.why.load() == kCancelInterrupt ? ErrorKind::Interrupted : ErrorKind::LaunchTimeout;
}

inline std::string BlockGuard::Message(const Core& core) const {
    if (Cancelled()) {
        const char* why = watch.why.load() == kCancelInterrupt ? "interrupted (SIGINT)"
                                                               : "timed out (OPGEN_SIM_TIMEOUT)";
        return std::string("block stopped: the launch ") + why +
               KernelSite(g->pcs, g->npcs, true);
    }
    std::string what;
    // A kernel that turns a Unified Buffer address into a pointer ((__ubuf__ T*)t.GetPhyAddr())
    // gets a small number: on the device that is the UB address space, here an unmapped page.
    static constexpr const char* kUbAddressAsPointer =
        "a Unified Buffer address used as a pointer: LocalTensor::GetPhyAddr() is an offset into "
        "the UB, as on the device, and the simulator keeps the UB elsewhere; reach the data "
        "through the LocalTensor";
    const auto addr = reinterpret_cast<uintptr_t>(g->addr);
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%lx", static_cast<unsigned long>(addr));
    switch (g->sig) {
        case SIGFPE:
            what = g->code == FPE_INTDIV ? "integer division by zero"
                   : g->code == FPE_INTOVF ? "integer overflow (e.g. INT_MIN / -1)"
                                           : "arithmetic exception";
            break;
        case SIGSEGV:
        case SIGBUS: {
            const auto ub = reinterpret_cast<uintptr_t>(core.ub);
            if (ub != 0 && addr >= ub + core.ub_capacity && addr < ub + core.ub_capacity + 4096) {
                what = "a write or read past the end of the Unified Buffer (UB offset " +
                       std::to_string(addr - ub) + " of " + std::to_string(core.ub_capacity) +
                       " bytes)";
            } else if (addr < 4096) {
                what = std::string("invalid memory access at address ") + hex +
                       " (a null pointer, e.g. an absent optional GM input" +
                       (addr != 0 ? std::string(", or ") + kUbAddressAsPointer : std::string()) +
                       ")";
            } else if (addr < core.ub_capacity) {
                what = std::string("invalid memory access at address ") + hex + " (" +
                       kUbAddressAsPointer + ")";
            } else {
                what = std::string("invalid memory access at address ") + hex +
                       " (a wild pointer: not a GM buffer passed to the kernel)";
            }
            break;
        }
        case SIGILL: what = "illegal instruction"; break;
        case SIGABRT:
            what = "abort() called in the kernel: std::abort, or a failed assert of the C library (its "
                   "message is above); the kernel's own assert, which kernel_operator.h defines and a "
                   "later #include <cassert> replaces, reports its condition and message instead";
            break;
        default: what = "signal " + std::to_string(g->sig); break;
    }
    return what + KernelSite(g->pcs, g->npcs, true);
}

// The Unified Buffer of a host thread: `capacity` bytes that end right before an inaccessible
// page, so a raw access past the buffer faults (and is reported) instead of corrupting memory.
inline uint8_t* AllocGuardedUb(uint64_t capacity, void*& map, size_t& map_bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t body = (capacity + 63) / 64 * 64;
    map_bytes = (body + page - 1) / page * page + page;
    map = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        map = nullptr;
        return nullptr;
    }
    uint8_t* guard = static_cast<uint8_t*>(map) + map_bytes - page;
    mprotect(guard, page, PROT_NONE);
    return guard - body;
}

inline uint8_t* GuardedThreadUb(uint64_t capacity) {
    struct Buffer {
        void* map = nullptr;
        size_t bytes = 0;
        uint8_t* p = nullptr;
        uint64_t capacity = 0;
        ~Buffer() {
            if (map != nullptr) munmap(map, bytes);
        }
    };
    thread_local Buffer buf;
    if (buf.p == nullptr || buf.capacity != capacity) {
        if (buf.map != nullptr) munmap(buf.map, buf.bytes);
        buf.p = AllocGuardedUb(capacity, buf.map, buf.bytes);
        buf.capacity = capacity;
    }
    return buf.p;
}

}  // namespace opgen_sim
