#include "sim/ranks/rank_scheduler.hpp"

#include <array>
#include <cstring>
#include <cxxabi.h>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define CKPT_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CKPT_SIM_ASAN 1
#endif
#endif
#if defined(CKPT_SIM_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace ckpt::sim {

namespace ctx = boost::context;

namespace {

// Thrown into a suspended rank to unwind its stack. Our own type rather than Boost's forced_unwind so that
// the unwinding goes through the same annotated switch as any other resume (AddressSanitizer must be told
// about every stack switch). Not a std::exception, so ordinary error handling in a body lets it pass.
struct Unwind {};

// The C++ runtime keeps the chain of caught exceptions and the uncaught count per thread, not per stack. A
// rank that blocks inside a catch handler (the rank-zero error path broadcasts from one) would otherwise
// share that chain with the next rank to run, and `throw;` or the end of either handler would pop the other's
// exception. Each switch therefore swaps them with the rank's own copy. The two leading fields of
// __cxa_eh_globals are the same in libstdc++ and libc++abi outside the ARM EABI unwinder.
#if (defined(__GLIBCXX__) || defined(_LIBCPPABI_VERSION) || defined(_LIBCPP_VERSION)) && \
    !defined(__ARM_EABI_UNWINDER__)
// Raw bytes of {caughtExceptions pointer, uncaughtExceptions count}; all zero is "no exception in flight".
struct EhGlobals {
    alignas(void*) unsigned char bytes[sizeof(void*) + sizeof(unsigned int)] = {};
};

void swap_eh_globals(EhGlobals& saved) noexcept {
    void* live = abi::__cxa_get_globals();
    EhGlobals current;
    std::memcpy(current.bytes, live, sizeof current.bytes);
    std::memcpy(live, saved.bytes, sizeof saved.bytes);
    saved = current;
}
#else
struct EhGlobals {};
void swap_eh_globals(EhGlobals&) noexcept {}
#endif

// AddressSanitizer tracks one stack per thread unless told about switches; without this, a throw on a rank's
// stack makes it report false overflows. The helpers themselves must not get a fake frame (with
// detect_stack_use_after_return) because they run while the thread's fake stack is being swapped.
struct StackBounds {
    const void* bottom = nullptr;
    std::size_t size = 0;
};

#if defined(CKPT_SIM_ASAN)
#define CKPT_SIM_NO_ASAN __attribute__((no_sanitize_address))
#else
#define CKPT_SIM_NO_ASAN
#endif

CKPT_SIM_NO_ASAN void asan_start_switch([[maybe_unused]] void** fake_stack,
                                        [[maybe_unused]] StackBounds to) noexcept {
#if defined(CKPT_SIM_ASAN)
    __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
#endif
}

CKPT_SIM_NO_ASAN void asan_finish_switch([[maybe_unused]] void* fake_stack,
                                         [[maybe_unused]] StackBounds* from) noexcept {
#if defined(CKPT_SIM_ASAN)
    if (from == nullptr) {
        __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
    } else {
        __sanitizer_finish_switch_fiber(fake_stack, &from->bottom, &from->size);
    }
#endif
}

// A finished rank cannot drop its own fake stack as it leaves: Boost returns through several frames that
// still live on it before the final jump. So the rank leaves it saved, and the scheduler adopts and deletes
// it here, without any real switch, once the rank's stack is gone.
CKPT_SIM_NO_ASAN void asan_release_fake_stack([[maybe_unused]] void*& fake_stack,
                                              [[maybe_unused]] StackBounds main) noexcept {
#if defined(CKPT_SIM_ASAN)
    if (fake_stack == nullptr) {
        return;
    }
    void* main_fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&main_fake_stack, main.bottom, main.size);
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
    __sanitizer_start_switch_fiber(nullptr, main.bottom, main.size);
    __sanitizer_finish_switch_fiber(main_fake_stack, nullptr, nullptr);
    fake_stack = nullptr;
#endif
}

// Guarded stacks are mmap'd with a guard page, which costs system calls and fresh page faults.
// An exploration starts thousands of incarnations of up to eight ranks each, so each thread
// keeps the stacks it has used and hands them out again: a reused stack's pages are already
// mapped and touched.
class StackPool {
  public:
    ~StackPool() {
        for (auto& [size, stacks] : free_) {
            ctx::protected_fixedsize_stack allocator(size);
            for (auto& stack : stacks) {
                allocator.deallocate(stack);
            }
        }
    }
    ctx::stack_context take(std::size_t size) {
        auto& stacks = free_[size];
        if (stacks.empty()) {
            return ctx::protected_fixedsize_stack(size).allocate();
        }
        const auto stack = stacks.back();
        stacks.pop_back();
        return stack;
    }
    void give_back(std::size_t size, const ctx::stack_context& stack) { free_[size].push_back(stack); }

  private:
    std::map<std::size_t, std::vector<ctx::stack_context>> free_;
};

StackPool& stack_pool() {
    thread_local StackPool pool;
    return pool;
}

// A pooled guarded stack that also tells us where it is, which the AddressSanitizer
// annotations need.
class RecordingStack {
  public:
    RecordingStack(std::size_t size, StackBounds* where) : size_(size), where_(where) {}

    ctx::stack_context allocate() {
        ctx::stack_context stack = stack_pool().take(size_);
        *where_ = {static_cast<char*>(stack.sp) - stack.size, stack.size};
        return stack;
    }
    void deallocate(ctx::stack_context& stack) noexcept {
        try {
            stack_pool().give_back(size_, stack);
        } catch (...) {
            ctx::protected_fixedsize_stack(size_).deallocate(stack);
        }
    }

  private:
    std::size_t size_;
    StackBounds* where_;
};

constexpr std::uint32_t bit(int rank) noexcept {
    return std::uint32_t{1} << rank;
}

enum class State : std::uint8_t { ready, blocked, finished, failed, dead };

bool ended(State state) noexcept {
    return state == State::finished || state == State::failed || state == State::dead;
}

}  // namespace

struct RankScheduler::Impl {
    struct Slot {
        ctx::fiber fiber;
        State state = State::ready;
        bool unwind_requested = false;
        std::uint64_t sequence = 0;
        WaitPoint wait;
        nlohmann::json inbox;  // a completed broadcast's value, delivered before the rank runs again
        std::string message;
        std::exception_ptr error;
        EhGlobals eh;
        StackBounds stack;
        void* asan_fake_stack = nullptr;
    };

    // The one collective in flight. Every completed collective had every rank in it, so all ranks are at the
    // same sequence number and a second rendezvous can never open while one is pending.
    struct Rendezvous {
        bool open = false;
        bool mismatch = false;
        CollectiveKind kind = CollectiveKind::barrier;
        int src = -1;
        std::uint64_t sequence = 0;
        std::uint32_t arrived = 0;
        nlohmann::json value;  // the root's value
    };

    Impl(RankScheduler& owner, RankSchedulerConfig config, Chooser chooser)
        : owner(owner),
          config(config),
          chooser(std::move(chooser)),
          slots(static_cast<std::size_t>(config.world_size)),
          all((std::uint32_t{1} << config.world_size) - 1) {}

    RankScheduler& owner;
    RankSchedulerConfig config;
    Chooser chooser;
    std::vector<Slot> slots;  // never resized: stacks record their bounds into it
    const std::uint32_t all;
    std::uint32_t runnable = 0;
    std::uint32_t pending_unwind = 0;
    Rendezvous rv;
    ctx::fiber main;  // the scheduler's own context, held by whichever rank is running
    StackBounds main_stack;
    void* main_fake_stack = nullptr;
    std::exception_ptr job_crash;
    bool started = false;

    void spawn(const Body& body);
    int choose();
    void dispatch(int rank);
    ctx::fiber rank_main(int rank, const Body& body, ctx::fiber&& from_main);
    void suspend(int rank);
    void arrive(int rank, CollectiveKind kind, int src, const char* label, nlohmann::json* value);
    void complete();
    void mark_dead(int rank, const char* reason);
    void fail(int rank, std::string message);
    void unwind(int rank);
    void unwind_pending();
    void unwind_all() noexcept;
    RunResult collect() const;
    std::string diagnose_hang() const;
};

void RankScheduler::Impl::spawn(const Body& body) {
    for (int r = 0; r < config.world_size; ++r) {
        Slot& slot = slots[static_cast<std::size_t>(r)];
        if (slot.state != State::ready) {
            continue;  // killed before the job started
        }
        slot.fiber = ctx::fiber(
            std::allocator_arg, RecordingStack(config.stack_size, &slot.stack),
            [this, r, &body](ctx::fiber&& from_main) { return rank_main(r, body, std::move(from_main)); });
        runnable |= bit(r);
    }
}

int RankScheduler::Impl::choose() {
    std::array<int, kMaxRanks> ranks{};
    std::size_t count = 0;
    for (int r = 0; r < config.world_size; ++r) {
        if ((runnable & bit(r)) != 0) {
            ranks[count++] = r;
        }
    }
    if (count == 1 || !chooser) {
        return ranks[0];
    }
    const std::size_t index = chooser(std::span<const int>(ranks.data(), count));
    if (index >= count) {
        throw std::out_of_range("RankScheduler chooser returned index " + std::to_string(index) + " for " +
                                std::to_string(count) + " runnable ranks");
    }
    return ranks[index];
}

void RankScheduler::Impl::dispatch(int rank) {
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    owner.current_ = rank;
    owner.stats_.context_switches += 2;
    swap_eh_globals(slot.eh);
    asan_start_switch(&main_fake_stack, slot.stack);
    slot.fiber = std::move(slot.fiber).resume();
    asan_finish_switch(main_fake_stack, nullptr);
    if (!slot.fiber) {
        asan_release_fake_stack(slot.asan_fake_stack, main_stack);
    }
    swap_eh_globals(slot.eh);
    owner.current_ = -1;
}

ctx::fiber RankScheduler::Impl::rank_main(int rank, const Body& body, ctx::fiber&& from_main) {
    main = std::move(from_main);
    asan_finish_switch(nullptr, &main_stack);
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    if (!slot.unwind_requested) {
        try {
            body(rank);
            if (!slot.unwind_requested) {  // a body that swallowed Unwind must not look finished
                slot.state = State::finished;
            }
        } catch (const Unwind&) {
            // Abandoned by the scheduler; its outcome was settled before.
        } catch (const RankDied& died) {
            mark_dead(rank, died.reason());
        } catch (const JobCrash& crash) {
            fail(rank, "job crash: " + crash.reason());
            job_crash = std::current_exception();
        } catch (const std::exception& error) {
            fail(rank, error.what());
        } catch (...) {
            fail(rank, "unknown exception");
        }
    }
    runnable &= ~bit(rank);
    asan_start_switch(&slot.asan_fake_stack, main_stack);  // released by the scheduler, see there
    return std::move(main);
}

void RankScheduler::Impl::suspend(int rank) {
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    if (!main) {
        throw std::logic_error("a collective was entered on rank " + std::to_string(rank) +
                               " while the scheduler was not running it");
    }
    asan_start_switch(&slot.asan_fake_stack, main_stack);
    main = std::move(main).resume();
    asan_finish_switch(slot.asan_fake_stack, &main_stack);
    if (slot.unwind_requested) {
        throw Unwind{};
    }
}

void RankScheduler::Impl::arrive(int rank, CollectiveKind kind, int src, const char* label,
                                 nlohmann::json* value) {
    if (rank != owner.current_) {
        throw std::logic_error("the collective of rank " + std::to_string(rank) + " was used on rank " +
                               std::to_string(owner.current_));
    }
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    if (slot.unwind_requested) {
        throw Unwind{};  // a body that swallowed Unwind may not block again
    }
    slot.wait = WaitPoint{kind, src, slot.sequence++, label};
    if (!rv.open) {
        rv.open = true;
        rv.mismatch = false;
        rv.kind = kind;
        rv.src = src;
        rv.sequence = slot.wait.sequence;
        rv.arrived = 0;
    } else if (rv.kind != kind || rv.src != src) {
        // torch would hang or exchange garbage; either way the collective never completes as written.
        rv.mismatch = true;
    }
    rv.arrived |= bit(rank);
    if (kind == CollectiveKind::broadcast && rank == src) {
        rv.value = std::move(*value);
    }
    slot.state = State::blocked;
    runnable &= ~bit(rank);
    if (!rv.mismatch && rv.arrived == all) {
        complete();
    }
    // Even the last arrival yields, so the chooser decides which rank leaves the collective first.
    suspend(rank);
    if (kind == CollectiveKind::broadcast) {
        *value = std::move(slot.inbox);
    }
}

void RankScheduler::Impl::complete() {
    rv.open = false;
    ++owner.stats_.collectives;
    for (int r = 0; r < config.world_size; ++r) {
        Slot& slot = slots[static_cast<std::size_t>(r)];
        slot.state = State::ready;
        if (rv.kind == CollectiveKind::broadcast && r != rv.src) {
            slot.inbox = rv.value;
        }
    }
    if (rv.kind == CollectiveKind::broadcast) {
        slots[static_cast<std::size_t>(rv.src)].inbox = std::move(rv.value);
    }
    runnable = all;
}

void RankScheduler::Impl::mark_dead(int rank, const char* reason) {
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    slot.state = State::dead;
    slot.message = reason;
    runnable &= ~bit(rank);
    rv.arrived &= ~bit(rank);  // a dead participant cannot complete the collective it had entered
}

void RankScheduler::Impl::fail(int rank, std::string message) {
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    slot.state = State::failed;
    slot.message = std::move(message);
    slot.error = std::current_exception();
}

void RankScheduler::Impl::unwind(int rank) {
    Slot& slot = slots[static_cast<std::size_t>(rank)];
    if (!slot.fiber) {
        return;
    }
    // Resumed like any other dispatch, it throws Unwind from its suspension point (or skips its body if it
    // never started), so its destructors run on its own stack with its own exception state.
    slot.unwind_requested = true;
    dispatch(rank);
}

void RankScheduler::Impl::unwind_pending() {
    while (pending_unwind != 0) {
        const int rank = __builtin_ctz(pending_unwind);
        pending_unwind &= ~bit(rank);
        unwind(rank);
    }
}

void RankScheduler::Impl::unwind_all() noexcept {
    // An exception escaping a rank here has nowhere sensible to go: every body is already wrapped.
    pending_unwind = 0;
    for (int r = 0; r < config.world_size; ++r) {
        unwind(r);
    }
}

RunResult RankScheduler::Impl::collect() const {
    RunResult result;
    result.ranks.resize(slots.size());
    bool any_hung = false;
    for (std::size_t r = 0; r < slots.size(); ++r) {
        const Slot& slot = slots[r];
        RankOutcome& outcome = result.ranks[r];
        outcome.collectives = slot.sequence;
        outcome.message = slot.message;
        outcome.error = slot.error;
        switch (slot.state) {
            case State::finished:
                outcome.kind = RankOutcome::Kind::finished;
                break;
            case State::failed:
                outcome.kind = RankOutcome::Kind::failed;
                break;
            case State::dead:
                outcome.kind = RankOutcome::Kind::dead;
                break;
            case State::ready:  // unreachable: run() collects only once nothing is runnable
            case State::blocked:
                outcome.kind = RankOutcome::Kind::hung;
                outcome.waiting = slot.wait;
                any_hung = true;
                break;
        }
    }
    if (any_hung) {
        result.hang = diagnose_hang();
    }
    return result;
}

std::string RankScheduler::Impl::diagnose_hang() const {
    std::string collective = to_string(rv.kind);
    if (rv.kind == CollectiveKind::broadcast) {
        collective += "(src " + std::to_string(rv.src) + ")";
    }
    collective += " #" + std::to_string(rv.sequence);
    if (rv.mismatch) {
        return "collective mismatch at " + collective + ": ranks wait in different collectives";
    }
    std::string why = collective + " can never complete:";
    const char* separator = " ";
    for (int r = 0; r < config.world_size; ++r) {
        if ((rv.arrived & bit(r)) != 0) {
            continue;
        }
        const Slot& slot = slots[static_cast<std::size_t>(r)];
        why += separator;
        why += "rank " + std::to_string(r);
        if (r == rv.src) {
            why += " (the root)";
        }
        switch (slot.state) {
            case State::dead:
                why += " is dead";
                break;
            case State::failed:
                why += " failed: " + slot.message;
                break;
            default:
                why += " finished";
                break;
        }
        separator = "; ";
    }
    return why;
}

RankScheduler::RankScheduler(RankSchedulerConfig config, Chooser chooser) : world_size_(config.world_size) {
    if (config.world_size < 1 || config.world_size > kMaxRanks) {
        throw std::invalid_argument("world_size must be in [1, " + std::to_string(kMaxRanks) + "], got " +
                                    std::to_string(config.world_size));
    }
    impl_ = std::make_unique<Impl>(*this, config, std::move(chooser));
}

RankScheduler::~RankScheduler() {
    impl_->unwind_all();
}

RunResult RankScheduler::run(const Body& body) {
    Impl& m = *impl_;
    if (m.started) {
        throw std::logic_error("RankScheduler::run may be called only once");
    }
    m.started = true;
    // Whatever leaves this function (a hang, a job crash, a throwing chooser), no rank stack outlives it.
    struct UnwindOnExit {
        Impl& m;
        ~UnwindOnExit() { m.unwind_all(); }
    } unwind_on_exit{m};

    m.spawn(body);
    while (true) {
        m.unwind_pending();
        if (m.job_crash) {
            std::rethrow_exception(m.job_crash);
        }
        if (m.runnable == 0) {
            break;
        }
        const int rank = m.choose();
        if ((m.runnable & bit(rank)) != 0) {  // the chooser may have killed it
            m.dispatch(rank);
        }
    }
    RunResult result = m.collect();
    m.unwind_all();
    if (result.hung() && m.config.watchdog) {
        throw WatchdogTimeout(std::move(result));
    }
    return result;
}

void RankScheduler::kill_rank(int rank) {
    if (rank < 0 || rank >= world_size_) {
        throw std::out_of_range("kill_rank: no rank " + std::to_string(rank));
    }
    Impl::Slot& slot = impl_->slots[static_cast<std::size_t>(rank)];
    if (ended(slot.state) || slot.unwind_requested) {
        return;
    }
    impl_->mark_dead(rank, "killed");
    if (rank == current_) {
        throw RankDied("killed");
    }
    if (slot.fiber) {
        // Unwound from the scheduler loop, never from another rank's stack.
        impl_->pending_unwind |= bit(rank);
    }
}

bool RankScheduler::is_alive(int rank) const {
    if (rank < 0 || rank >= world_size_) {
        throw std::out_of_range("is_alive: no rank " + std::to_string(rank));
    }
    const Impl::Slot& slot = impl_->slots[static_cast<std::size_t>(rank)];
    return !ended(slot.state) && !slot.unwind_requested;
}

void RankScheduler::barrier(int rank, const char* label) {
    impl_->arrive(rank, CollectiveKind::barrier, -1, label, nullptr);
}

nlohmann::json RankScheduler::broadcast(int rank, nlohmann::json value, int src, const char* label) {
    impl_->arrive(rank, CollectiveKind::broadcast, src, label, &value);
    return value;
}

}  // namespace ckpt::sim
