// The scenario's planned faults. As an event sink it decides when a fault is due (a crash at
// the n-th passage of a crash point, a step-triggered fault); the simulation then calls
// `execute`, which reports the fault as events and throws or kills the rank. Each planned fault
// fires at most once over the whole run, so every crash is followed by progress and a run
// always ends. It never calls a checker and never writes the ledger.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/rng.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/event_sink.hpp"
#include "sim/faults/callback_io.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// A planned fault that must fire now, on `rank`, at `point` (crashes only).
struct DueFault {
    std::size_t index = 0;
    CrashPoint point = CrashPoint::step_end;
    int rank = 0;
};

// What `execute` needs of the world.
struct FaultTargets {
    SimFileSystem& fs;
    const Ledger& ledger;
    RankScheduler& scheduler;
    EventSink& events;
};

class FaultPlan {
  public:
    FaultPlan(const Scenario& scenario, Rng rng, const CallbackIo& io);

    void on(const IncarnationBegan&) noexcept {
        io_error_fired_ = false;
        broadcast_ = {};
    }
    void on(const CrashPointPassed& e);
    void on(const StepFinished& e);
    // The moments aimed crashes wait for (FaultAim): rank 0's decision as the policy reports it
    // (the only moment between the decision and its persist), and the return of rank 0's
    // on_evaluate, after which a decision without a save must be durable.
    void on(const DecisionMade& e) noexcept;
    void on(const EvaluationReturned& e) noexcept;
    // The collectives' leaving order, for a death aimed part-way through a broadcast.
    void on(const RankStateShared& e) noexcept;
    void on(const auto&) noexcept {}

    // Tested after every event, most often with nothing due: one test, no copy.
    bool has_due() const noexcept { return due_.has_value(); }
    std::optional<DueFault> take_due() noexcept {
        auto due = due_;
        due_.reset();
        return due;
    }
    // Reports the due fault and carries it out: throws SimulatedCrash or kills the rank (and
    // returns only when the rank killed is not the one running).
    void execute(const DueFault& due, FaultTargets targets);

    // The disk's fault hook, for rank 0 inside an incarnation: the I/O error due on `op`.
    struct IoFault {
        Fault fault;
        IoTarget target;
    };
    std::optional<IoFault> io_fault(const FsOperation& op);
    bool has_io_faults() const noexcept { return has_io_faults_; }
    // Whether an I/O error fired in the current incarnation: it explains a job that failed.
    bool io_error_fired() const noexcept { return io_error_fired_; }

  private:
    struct PlanState {
        bool fired = false;
        std::uint32_t seen = 0;
    };

    void fire(std::size_t index, CrashPoint point, int rank);
    [[noreturn]] void execute_crash(const PlannedFault& fault, const DueFault& due, FaultTargets targets);
    void execute_step_fault(const PlannedFault& fault, const DueFault& due, FaultTargets targets);
    void execute_mid_broadcast_death(FaultTargets targets);
    void corrupt_until_unreadable(SimFileSystem& fs, const std::string& path);
    void refresh_next_step_fault() noexcept;
    void reach_moment(FaultAim aim) noexcept;

    const Scenario& scenario_;
    Rng rng_;
    const CallbackIo& io_;
    std::vector<PlanState> plan_;
    std::array<std::array<std::uint64_t, kMaxRanks>, kCrashPointCount> passes_{};
    std::uint32_t armed_points_ = 0;  // bit per crash point with an unfired crash planned
    std::int64_t next_step_fault_ = INT64_MAX;
    bool has_io_faults_ = false;
    bool io_error_fired_ = false;
    bool callback_rename_pending_ = false;  // a sidecar or link rename awaits its directory fsync
    bool has_aimed_ = false;
    std::array<std::uint32_t, kFaultAimNames.size()> moments_{};
    std::optional<std::size_t> aimed_due_;  // fires at rank 0's next crash point
    // The collective ranks are leaving now: its sequence, the ranks that left (reported their
    // state), and rank 0's step, which a mid-broadcast death waits for.
    struct Leaving {
        std::optional<std::uint64_t> sequence;
        std::uint32_t left = 0;
    };
    Leaving broadcast_;
    std::uint32_t mid_broadcast_victims_ = 0;  // ranks that had not left when it fired
    std::int64_t rank_zero_step_ = 0;
    std::optional<DueFault> due_;
};

}  // namespace ckpt::sim
