// opgen NPU simulator: the cross-core state of one launch. Blocks that wait for one another
// (SyncAll, IBSet/IBWait, CrossCoreSetFlag/CrossCoreWaitFlag in sync.h) park here; a launch whose
// blocks all wait for something no one can give any more is a deadlock, reported as an error
// naming each block's wait instead of hanging.
//
// Scheduling: blocks run on host threads, several blocks per thread one after another (launch.h).
// A barrier needs every block of the launch live at once, so a block that starts to wait while
// blocks remain unstarted starts a helper thread, which takes blocks no thread has taken. A
// launch without cross-core waits never gets here and runs exactly as before; one with them uses
// at most one thread per waiting block beyond the pool (and a block polling GM, NotePoll, starts
// one too). The launch waits for its helpers before it returns. Helper threads are kept between
// launches (HelperPool): a SyncAll kernel of 48 blocks on two cores would otherwise create and
// tear down 46 threads, their stacks and Unified Buffers at every launch.
//
// Wake-ups: each parked block waits on a condition of its own, and a change of the cross-core
// state wakes only the blocks whose wait it ends (WakeReady), so the blocks arriving one by one at
// a barrier wake no one until the last arrives (not every parked block at every arrival).
#pragma once

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core.h"
#include "deferred.h"

namespace opgen_sim {

enum BlockState : uint8_t { kBlockUnstarted = 0, kBlockRunning, kBlockFinished, kBlockFailed };

// A block parked in a cross-core wait; lives on that block's stack, linked into
// LaunchSync::waiters while it waits. ready() runs under LaunchSync::mu.
struct Waiter {
    int32_t block = 0;
    bool (*ready)(const void* ctx) = nullptr;
    const void* ctx = nullptr;
    Waiter* next = nullptr;
    std::condition_variable cv;  // notified (under LaunchSync::mu) when the wait may be over
};

// A wait that cannot end (deadlock) or was cancelled. RunBlock records it below any rule
// violation of another block (that violation is then the cause the launch reports).
struct SyncAbort {
    SimError error;
};

constexpr int32_t kCrossCoreFlags = 16;  // CrossCoreSetFlag flag ids of modes 0-2 (4 bits)

// One zeroed atomic per block of a launch: in place up to N blocks, on the heap beyond (a small
// launch allocates nothing for it).
template <typename T, size_t N>
class BlockAtomics {
public:
    void reset(size_t n) {
        if (n > N) {
            heap_.reset(new std::atomic<T>[n]());
            data_ = heap_.get();
        } else {
            heap_.reset();
            for (size_t i = 0; i < n; ++i) inline_[i].store(T{}, std::memory_order_relaxed);
            data_ = inline_;
        }
    }
    std::atomic<T>& operator[](size_t i) const { return data_[i]; }
    explicit operator bool() const { return data_ != nullptr; }

private:
    mutable std::atomic<T> inline_[N];
    std::unique_ptr<std::atomic<T>[]> heap_;
    std::atomic<T>* data_ = nullptr;
};

struct LaunchSync {
    int32_t block_dim = 1;
    const std::atomic<int32_t>* taken = nullptr;  // how many blocks the job's threads have taken
    void (*run_blocks)(void* job) = nullptr;     // a helper thread's body: runs blocks until none is left
    void* job = nullptr;
    BlockAtomics<uint8_t, 64> state;  // BlockState of each block
    std::atomic<int32_t> done{0};                   // blocks finished (or failed)
    std::atomic<int32_t> nwaiters{0};

    // Cancellation (a launch timeout, an interrupt): set `cancel` (any thread), or give a
    // `deadline` before the launch starts. No block starts after `cancel`, and every block that
    // waits, or starts to wait, stops with an error naming `cancel_reason` and its wait. A block
    // that never waits runs to its end.
    std::atomic<bool> cancel{false};
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    const char* cancel_reason = "launch cancelled";

    std::mutex mu;
    Waiter* waiters = nullptr;  // guarded by mu, as is everything below
    bool deadlock = false;
    int32_t helpers_running = 0;          // helper threads running this launch's blocks
    std::condition_variable helpers_done;  // notified when helpers_running drops to 0
    std::atomic<bool> started_helpers{false};
    // The launch's cores: aiv_blocks vector cores (task_ratio per AI Core), then, in a __mix__
    // launch, one cube core per AI Core.
    int32_t aiv_blocks = 1;
    int32_t task_ratio = 1;
    // CrossCoreSetFlag/CrossCoreWaitFlag: how often each core set each flag id in mode 0, 1 and 2
    // and waited for it, core-major (allocated at the first use).
    std::vector<uint32_t> sets;
    std::vector<uint32_t> sets1;
    std::vector<uint32_t> sets2;
    std::vector<uint32_t> waits;

    void Prepare(int32_t blocks, const std::atomic<int32_t>* taken_blocks, void (*run)(void*),
                 void* owner) {
        block_dim = blocks;
        taken = taken_blocks;
        run_blocks = run;
        job = owner;
        state.reset(static_cast<size_t>(blocks));
    }
    bool Cancelled() const {
        return cancel.load(std::memory_order_relaxed) ||
               (deadline != std::chrono::steady_clock::time_point::max() &&
                std::chrono::steady_clock::now() >= deadline);
    }
    // Called by every block when it ends (finished or failed).
    inline void BlockEnded(int32_t b, bool failed);
    // Waits for the helper threads to be done with this launch (after every block has ended).
    void JoinHelpers() {
        // (a helper starts only from a block's wait, and every block has ended: a launch that
        // started none takes no lock here)
        if (!started_helpers.load(std::memory_order_acquire)) return;
        std::unique_lock<std::mutex> lock(mu);
        helpers_done.wait(lock, [this] { return helpers_running == 0; });
    }
    // " (finished)" / " (stopped with an error)" / "" for block b, for messages.
    std::string StateNote(int32_t b) const {
        const uint8_t s = state[b].load(std::memory_order_acquire);
        if (s == kBlockFinished) return " (finished)";
        if (s == kBlockFailed) return " (stopped with an error)";
        if (s == kBlockUnstarted) return " (not started)";
        return "";
    }
    std::vector<uint32_t>& Sets(int32_t mode = 0) {
        std::vector<uint32_t>& v = mode == 0 ? sets : mode == 1 ? sets1 : sets2;
        if (v.empty()) v.assign(static_cast<size_t>(block_dim) * kCrossCoreFlags, 0);
        return v;
    }
    bool IsAic(int32_t b) const { return b >= aiv_blocks; }
    bool HasAic() const { return block_dim > aiv_blocks; }
    // a __mix__ launch: vector and cube cores (a __cube__ launch has cube cores only)
    bool IsMix() const { return aiv_blocks > 0 && block_dim > aiv_blocks; }
    // The AI Core of core b; its first vector core; its cube core.
    int32_t AiCore(int32_t b) const { return IsAic(b) ? b - aiv_blocks : b / task_ratio; }
    int32_t FirstAiv(int32_t core) const { return core * task_ratio; }
    int32_t Aic(int32_t core) const { return aiv_blocks + core; }
    // "block 3", or "AIC 1" for a cube core, for messages.
    std::string CoreName(int32_t b) const {
        return IsAic(b) ? "AIC " + std::to_string(b - aiv_blocks) : std::to_string(b);
    }
    std::vector<uint32_t>& Waits() {
        if (waits.empty()) waits.assign(static_cast<size_t>(block_dim) * kCrossCoreFlags, 0);
        return waits;
    }
};

inline thread_local LaunchSync* tls_sync = nullptr;

inline LaunchSync& CurrentSync() {
    if (tls_sync == nullptr) {
        throw std::logic_error("Ascend C cross-core API called outside a simulated kernel launch");
    }
    return *tls_sync;
}

// Threads for the blocks of cross-core waits, kept for later launches: an idle helper takes the
// next block run (its thread's alternate signal stack and Unified Buffer stay mapped); up to
// kIdleHelpers stay idle, a helper beyond them ends when its run does. One pool per kernel
// library (its code runs in them); a forked child, which has none of the threads, gets a new one.
class HelperPool {
public:
    static constexpr size_t kIdleHelpers = 64;

    static HelperPool& Get() {
        static std::once_flag once;
        std::call_once(once, [] {
            Ptr() = new HelperPool();  // never destroyed: detached helpers outlive static teardown
            pthread_atfork(nullptr, nullptr, [] { Ptr() = new HelperPool(); });
        });
        return *Ptr();
    }
    // Runs s.run_blocks(s.job) on a helper thread; s.helpers_running counts it until it returns.
    // Under s.mu. A thread the system refuses throws (std::system_error: the waiting block's
    // error) before anything is counted, so the launch does not wait for it.
    void Start(LaunchSync& s) {
        std::lock_guard<std::mutex> lock(mu_);
        Helper* h = nullptr;
        if (!idle_.empty()) {
            h = idle_.back();
            idle_.pop_back();
        } else {
            std::unique_ptr<Helper> fresh(new Helper());
            std::thread(&HelperPool::Loop, this, fresh.get()).detach();  // waits for mu_
            h = fresh.release();
        }
        ++s.helpers_running;
        s.started_helpers.store(true, std::memory_order_release);
        h->sync = &s;
        h->cv.notify_one();
    }

private:
    struct Helper {
        std::condition_variable cv;
        LaunchSync* sync = nullptr;  // the launch to run blocks of; guarded by mu_
    };
    static HelperPool*& Ptr() {
        static HelperPool* pool = nullptr;
        return pool;
    }
    void Loop(Helper* h) {
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            h->cv.wait(lock, [h] { return h->sync != nullptr; });
            LaunchSync* s = h->sync;
            h->sync = nullptr;
            lock.unlock();
            s->run_blocks(s->job);
            {  // the launch may end (and s go) as soon as the count is 0 and mu is released
                std::lock_guard<std::mutex> done(s->mu);
                if (--s->helpers_running == 0) s->helpers_done.notify_all();
            }
            lock.lock();
            if (idle_.size() >= kIdleHelpers) break;
            idle_.push_back(h);
        }
        lock.unlock();
        delete h;
    }
    std::mutex mu_;
    std::vector<Helper*> idle_;  // guarded by mu_
};

// Wakes the parked blocks whose wait is over (their ready() holds). Under s.mu.
inline void WakeReady(LaunchSync& s) {
    for (Waiter* w = s.waiters; w != nullptr; w = w->next) {
        if (w->ready(w->ctx)) w->cv.notify_one();
    }
}
// Wakes every parked block, to see a deadlock or a cancellation. Under s.mu.
inline void WakeAll(LaunchSync& s) {
    for (Waiter* w = s.waiters; w != nullptr; w = w->next) w->cv.notify_one();
}

// Every block live, none able to go on: true when all started blocks that have not ended wait,
// no block is left to start, and no waiter's condition holds. Under s.mu.
inline bool DeadlockedLocked(LaunchSync& s) {
    if (s.taken->load(std::memory_order_seq_cst) < s.block_dim) return false;
    const int32_t live = s.block_dim - s.done.load(std::memory_order_seq_cst);
    if (live != s.nwaiters.load(std::memory_order_seq_cst)) return false;
    for (Waiter* w = s.waiters; w != nullptr; w = w->next) {
        if (w->ready(w->ctx)) return false;
    }
    return true;
}

inline void LaunchSync::BlockEnded(int32_t b, bool failed) {
    state[b].store(failed ? kBlockFailed : kBlockFinished, std::memory_order_release);
    done.fetch_add(1, std::memory_order_seq_cst);
    if (nwaiters.load(std::memory_order_seq_cst) > 0) {
        // the end may leave the parked blocks deadlocked (each then reports it), or end a wait
        // on GM the block wrote
        std::lock_guard<std::mutex> lock(mu);
        if (DeadlockedLocked(*this)) {
            WakeAll(*this);
        } else {
            WakeReady(*this);
        }
    }
}

template <typename F>
inline bool CallReady(const void* f) {
    return (*static_cast<const F*>(f))();
}

// Parks the calling block (holding `lock` on s.mu) until ready() holds; ready() and describe()
// are called under the lock. Starts a helper thread when blocks remain unstarted, so that the
// blocks this one waits for get a thread. A deadlock or a cancellation throws SyncAbort with
// `api` and describe() (what the block waits for).
template <typename Ready, typename Describe>
inline void WaitLocked(LaunchSync& s, std::unique_lock<std::mutex>& lock, const char* api,
                       const Ready& ready, const Describe& describe) {
    if (ready()) return;
    Waiter w;
    w.block = static_cast<int32_t>(CurrentCore().block_idx);
    w.ready = &CallReady<Ready>;
    w.ctx = &ready;
    w.next = s.waiters;
    s.waiters = &w;
    s.nwaiters.fetch_add(1, std::memory_order_seq_cst);
    struct Unlink {
        LaunchSync& s;
        Waiter& w;
        ~Unlink() {
            for (Waiter** p = &s.waiters; *p != nullptr; p = &(*p)->next) {
                if (*p == &w) {
                    *p = w.next;
                    break;
                }
            }
            s.nwaiters.fetch_sub(1, std::memory_order_seq_cst);
        }
    } unlink{s, w};
    if (s.taken->load(std::memory_order_seq_cst) < s.block_dim && !s.Cancelled()) {
        HelperPool::Get().Start(s);
    }
    for (;;) {
        if (ready()) return;
        if (s.Cancelled()) {
            throw SyncAbort{{ErrorKind::Generic, api,
                             std::string(s.cancel_reason) + " while block " +
                                 std::to_string(w.block) + " waited: " + describe()}};
        }
        if (s.deadlock || DeadlockedLocked(s)) {
            if (!s.deadlock) {
                s.deadlock = true;
                WakeAll(s);
            }
            throw SyncAbort{{ErrorKind::Generic, api,
                             "deadlock: block " + std::to_string(w.block) + " waits " + describe() +
                                 ", and no block that could end the wait is still running"}};
        }
        // Woken when a change ends this wait (WakeReady), or to see a deadlock or a
        // cancellation (WakeAll); the timeout re-reads conditions on GM that a kernel may set
        // by other means, and the cancel flag.
        w.cv.wait_for(lock, std::chrono::milliseconds(2));
    }
}

// A block that polls GM (DataCacheCleanAndInvalid or ReadGmByPassDCache in a loop) may wait for
// what other blocks write, as asc-devkit's gm_by_dcache sample does; on hardware every block of
// the launch runs at once, here blocks that have not started would never write it. So a block's
// kPollsBeforeHelper-th poll, while blocks remain unstarted, starts one helper thread, as a
// cross-core wait does. A kernel that invalidates the cache a few times starts none.
constexpr uint32_t kPollsBeforeHelper = 64;
inline void NotePoll() {
    Core* c = tls_core;
    if (c == nullptr || ++c->gm_polls != kPollsBeforeHelper) return;
    LaunchSync* s = tls_sync;
    if (s == nullptr || s->run_blocks == nullptr) return;
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->taken->load(std::memory_order_seq_cst) < s->block_dim && !s->Cancelled()) {
        HelperPool::Get().Start(*s);
    }
}

// "3, 5 (finished), 7" for a list of blocks.
inline std::string BlockList(const LaunchSync& s, const std::vector<int32_t>& blocks) {
    std::string out;
    const size_t shown = blocks.size() < 8 ? blocks.size() : 8;
    for (size_t i = 0; i < shown; ++i) {
        if (i > 0) out += ", ";
        out += s.CoreName(blocks[i]) + s.StateNote(blocks[i]);
    }
    if (blocks.size() > shown) out += " and " + std::to_string(blocks.size() - shown) + " more";
    return out;
}

// An int32 of GM that several cores read and write (a sync workspace flag).
inline int32_t LoadGm(const int32_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
inline void StoreGm(int32_t* p, int32_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }

}  // namespace opgen_sim
