// The scheduler's private state, shared by its two halves: rank_scheduler.cpp (fibers, the
// rendezvous, kills and unwinding) and rank_outcome.cpp (how a run ended, and why it hung).
// Not part of the interface: include it only from sim/ranks/*.cpp.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <unwind.h>
#include <vector>

#include <boost/context/fiber.hpp>
#include <nlohmann/json.hpp>

#include "sim/ranks/exception_state.hpp"
#include "sim/ranks/fiber_stack.hpp"
#include "sim/ranks/rank_scheduler.hpp"

namespace ckpt::sim {

constexpr std::uint32_t rank_bit(int rank) noexcept {
    return std::uint32_t{1} << rank;
}

enum class RankState : std::uint8_t { ready, blocked, finished, failed, dead };

constexpr bool rank_ended(RankState state) noexcept {
    return state == RankState::finished || state == RankState::failed || state == RankState::dead;
}

struct RankScheduler::Impl {
    struct Slot {
        boost::context::fiber fiber;
        RankState state = RankState::ready;
        bool unwind_requested = false;
        std::uint64_t sequence = 0;
        WaitPoint wait;
        SharedJson inbox;  // a completed broadcast's value, delivered before the rank runs again
        std::string message;
        std::exception_ptr error;
        const std::exception* thrown = nullptr;  // the std::exception `error` holds, if it is one
        fibers::EhGlobals eh;
        fibers::StackBounds stack;
        void* asan_fake_stack = nullptr;
        _Unwind_Exception forced_unwind{};  // suspend's unwinding of this rank (rank_scheduler.cpp)
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
    boost::context::fiber main;  // the scheduler's own context, held by whichever rank is running
    fibers::StackBounds main_stack;
    void* main_fake_stack = nullptr;
    std::exception_ptr job_crash;
    bool started = false;

    Slot& slot_of(int rank) { return slots[static_cast<std::size_t>(rank)]; }
    const Slot& slot_of(int rank) const { return slots[static_cast<std::size_t>(rank)]; }

    void spawn(const Body& body);
    int choose();
    void dispatch(int rank);
    boost::context::fiber rank_main(int rank, const Body& body, boost::context::fiber&& from_main);
    void suspend(int rank);
    // Blocks `rank` in the collective; a broadcast's root passes its `value`, and every rank of a
    // broadcast gets back the one shared value (a barrier gets null).
    SharedJson arrive(int rank, CollectiveKind kind, int src, const char* label, nlohmann::json* value);
    void complete();
    void mark_dead(int rank, const char* reason);
    void fail(int rank, std::string message, const std::exception* thrown = nullptr);
    void unwind(int rank);
    void unwind_pending();
    void unwind_all() noexcept;
    RunResult collect() const;
    std::string diagnose_hang() const;
};

}  // namespace ckpt::sim
