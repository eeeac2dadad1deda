// The rank scheduler: every rank a fiber on the calling thread, switched only inside collectives,
// so the chooser's decisions alone fix the interleaving (and with it the trace hash). This file
// holds the fiber lifecycle, the rendezvous of barriers and broadcasts, kills and unwinding; the
// stacks and their ASan annotations are fiber_stack.hpp, the exception state exception_state.hpp,
// and how a run ended rank_outcome.cpp.
#include "sim/ranks/rank_scheduler.hpp"

#include <array>
#include <cstring>
#include <cxxabi.h>
#include <exception>
#include <memory>
#include <stdexcept>
#include <unwind.h>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>

#include "sim/base/assert.hpp"
#include "sim/ranks/rank_scheduler_impl.hpp"

namespace ckpt::sim {

namespace ctx = boost::context;
using fibers::asan_finish_switch;
using fibers::asan_release_fake_stack;
using fibers::asan_start_switch;
using fibers::swap_eh_globals;

namespace {

// Thrown into a suspended rank to unwind its stack. Our own type rather than Boost's forced_unwind so that
// the unwinding goes through the same annotated switch as any other resume (AddressSanitizer must be told
// about every stack switch). Not a std::exception, so ordinary error handling in a body lets it pass.
struct Unwind {};

// libstdc++'s forced unwinding (the abi::__forced_unwind that catches it is its own), and not under
// AddressSanitizer, which learns of a throw only through __cxa_throw.
#if defined(__GLIBCXX__) && !defined(CKPT_SIM_ASAN)
#define CKPT_SIM_FORCED_UNWIND 1
#endif

#if defined(CKPT_SIM_FORCED_UNWIND)
// The suspended rank's stack, unwound as a forced unwind: the unwinder's one cleanup pass, without the
// search pass a throw makes first (which walks the whole stack to find rank_main's handler, and was
// half of a deep stack's unwinding cost). The same handlers run: an `Unwind` (private, no bases) can
// only be caught by `catch (...)`, which a forced unwind enters too, and by rank_main, which catches
// this one as abi::__forced_unwind. A body's `catch (...) { ...; throw; }` resumes it.
_Unwind_Reason_Code continue_to_rank_main(int, _Unwind_Action actions, _Unwind_Exception_Class,
                                          _Unwind_Exception*, _Unwind_Context*, void*) {
    if ((actions & _UA_END_OF_STACK) != 0) {
        std::terminate();  // unreachable: rank_main's handler is below every suspension point
    }
    return _URC_NO_REASON;
}

[[noreturn]] void unwind_without_search(_Unwind_Exception& exception) {
    std::memset(&exception, 0, sizeof exception);
    std::memcpy(&exception.exception_class, "CKPTUNWD", sizeof exception.exception_class);
    exception.exception_cleanup = [](_Unwind_Reason_Code, _Unwind_Exception*) {};
    _Unwind_ForcedUnwind(&exception, continue_to_rank_main, nullptr);
    std::terminate();  // _Unwind_ForcedUnwind returns only when it could not unwind
}
#endif

}  // namespace

void RankScheduler::Impl::spawn(const Body& body) {
    for (int r = 0; r < config.world_size; ++r) {
        Slot& slot = slot_of(r);
        if (slot.state != RankState::ready) {
            continue;  // killed before the job started
        }
        slot.fiber = ctx::fiber(
            std::allocator_arg, fibers::RecordingStack(config.stack_size, &slot.stack),
            [this, r, &body](ctx::fiber&& from_main) { return rank_main(r, body, std::move(from_main)); });
        runnable |= rank_bit(r);
    }
}

int RankScheduler::Impl::choose() {
    std::array<int, kMaxRanks> ranks{};
    std::size_t count = 0;
    for (int r = 0; r < config.world_size; ++r) {
        if ((runnable & rank_bit(r)) != 0) {
            ranks[count++] = r;
        }
    }
    CKPT_ASSERT(count > 0);  // run() only chooses while a rank is runnable
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
    CKPT_ASSERT(owner.current_ == -1);  // only the scheduler dispatches: at most one rank runs at a time
    Slot& slot = slot_of(rank);
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
    Slot& slot = slot_of(rank);
    if (!slot.unwind_requested) {
        try {
            body(rank);
            if (!slot.unwind_requested) {  // a body that swallowed Unwind must not look finished
                slot.state = RankState::finished;
            }
        } catch (const Unwind&) {
            // Abandoned by the scheduler; its outcome was settled before.
        }
#if defined(CKPT_SIM_FORCED_UNWIND)
        catch (const abi::__forced_unwind&) {
            // The same, unwound by suspend.
        }
#endif
        catch (const RankDied& died) {
            mark_dead(rank, died.reason());
        } catch (const JobCrash& crash) {
            fail(rank, "job crash: " + crash.reason());
            job_crash = std::current_exception();
        } catch (const std::exception& error) {
            fail(rank, error.what(), &error);
        } catch (...) {
            fail(rank, "unknown exception");
        }
    }
    runnable &= ~rank_bit(rank);
    asan_start_switch(&slot.asan_fake_stack, main_stack);  // released by the scheduler, see there
    return std::move(main);
}

void RankScheduler::Impl::suspend(int rank) {
    Slot& slot = slot_of(rank);
    if (!main) {
        throw std::logic_error("a collective was entered on rank " + std::to_string(rank) +
                               " while the scheduler was not running it");
    }
    CKPT_ASSERT(owner.current_ == rank);  // only the running rank can give up the CPU
    asan_start_switch(&slot.asan_fake_stack, main_stack);
    main = std::move(main).resume();
    asan_finish_switch(slot.asan_fake_stack, &main_stack);
    if (slot.unwind_requested) {
#if defined(CKPT_SIM_FORCED_UNWIND)
        unwind_without_search(slot.forced_unwind);
#else
        throw Unwind{};
#endif
    }
}

SharedJson RankScheduler::Impl::arrive(int rank, CollectiveKind kind, int src, const char* label,
                                       nlohmann::json* value) {
    if (rank != owner.current_) {
        throw std::logic_error("the collective of rank " + std::to_string(rank) + " was used on rank " +
                               std::to_string(owner.current_));
    }
    Slot& slot = slot_of(rank);
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
    rv.arrived |= rank_bit(rank);
    if (kind == CollectiveKind::broadcast && rank == src) {
        rv.value = std::move(*value);
    }
    slot.state = RankState::blocked;
    runnable &= ~rank_bit(rank);
    if (!rv.mismatch && rv.arrived == all) {
        complete();
    }
    // Even the last arrival yields, so the chooser decides which rank leaves the collective first.
    suspend(rank);
    return std::move(slot.inbox);
}

void RankScheduler::Impl::complete() {
    rv.open = false;
    ++owner.stats_.collectives;
    // One tree for the whole world, read by every rank: no rank's copy to make or to free.
    const SharedJson shared =
        rv.kind == CollectiveKind::broadcast ? share_json(std::move(rv.value)) : nullptr;
    for (int r = 0; r < config.world_size; ++r) {
        Slot& slot = slot_of(r);
        CKPT_ASSERT(slot.state == RankState::blocked);  // a collective completes only with every rank in it
        slot.state = RankState::ready;
        slot.inbox = shared;
    }
    runnable = all;
}

void RankScheduler::Impl::mark_dead(int rank, const char* reason) {
    Slot& slot = slot_of(rank);
    slot.state = RankState::dead;
    slot.message = reason;
    runnable &= ~rank_bit(rank);
    rv.arrived &= ~rank_bit(rank);  // a dead participant cannot complete the collective it had entered
}

void RankScheduler::Impl::fail(int rank, std::string message, const std::exception* thrown) {
    Slot& slot = slot_of(rank);
    slot.state = RankState::failed;
    slot.message = std::move(message);
    slot.error = std::current_exception();  // holds the object being handled, `thrown` itself
    slot.thrown = thrown;
}

void RankScheduler::Impl::unwind(int rank) {
    Slot& slot = slot_of(rank);
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
        pending_unwind &= ~rank_bit(rank);
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
        if ((m.runnable & rank_bit(rank)) != 0) {  // the chooser may have killed it
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
    Impl::Slot& slot = impl_->slot_of(rank);
    if (rank_ended(slot.state) || slot.unwind_requested) {
        return;
    }
    impl_->mark_dead(rank, "killed");
    if (rank == current_) {
        throw RankDied("killed");
    }
    if (slot.fiber) {
        // Unwound from the scheduler loop, never from another rank's stack.
        impl_->pending_unwind |= rank_bit(rank);
    }
}

bool RankScheduler::is_alive(int rank) const {
    if (rank < 0 || rank >= world_size_) {
        throw std::out_of_range("is_alive: no rank " + std::to_string(rank));
    }
    const Impl::Slot& slot = impl_->slot_of(rank);
    return !rank_ended(slot.state) && !slot.unwind_requested;
}

void RankScheduler::barrier(int rank, const char* label) {
    impl_->arrive(rank, CollectiveKind::barrier, -1, label, nullptr);
}

SharedJson RankScheduler::broadcast(int rank, nlohmann::json value, int src, const char* label) {
    return impl_->arrive(rank, CollectiveKind::broadcast, src, label, &value);
}

}  // namespace ckpt::sim
