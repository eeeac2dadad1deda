// Deciding (as a sink) and executing (after the fan-out) the scenario's planned faults. The
// executed fault is reported as events before it throws, so the ledger and trace see it.
#include "sim/faults/fault_plan.hpp"

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/base/assert.hpp"
#include "sim/base/json_tree_reader.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/events/job_constants.hpp"
#include "sim/faults/simulated_crash.hpp"

namespace ckpt::sim {
namespace {

std::string crash_label(CrashKind kind, PowerLossMode mode) {
    return kind == CrashKind::process_kill ? "process_kill" : "power_loss:" + std::string(to_string(mode));
}

bool is_step_triggered(const PlannedFault& fault) noexcept {
    const auto action = fault.action;
    return (action == FaultAction::rank_death && fault.aim != FaultAim::mid_broadcast) ||
           action == FaultAction::preemption || action == FaultAction::corrupt_sidecar ||
           action == FaultAction::corrupt_checkpoint;
}

}  // namespace

FaultPlan::FaultPlan(const Scenario& scenario, Rng rng, const CallbackIo& io)
    : scenario_(scenario), rng_(rng), io_(io), plan_(scenario.faults.size()) {
    for (const auto& fault : scenario_.faults) {
        if (fault.action == FaultAction::crash && fault.aim != FaultAim::none) {
            has_aimed_ = true;
        } else if (fault.action == FaultAction::crash) {
            armed_points_ |= 1U << static_cast<unsigned>(fault.point);
        }
        has_io_faults_ = has_io_faults_ || fault.action == FaultAction::io_error;
    }
    refresh_next_step_fault();
}

void FaultPlan::refresh_next_step_fault() noexcept {
    next_step_fault_ = INT64_MAX;
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        if (is_step_triggered(scenario_.faults[i]) && !plan_[i].fired) {
            next_step_fault_ = std::min(next_step_fault_, scenario_.faults[i].at_step);
        }
    }
}

void FaultPlan::fire(std::size_t index, CrashPoint point, int rank) {
    plan_[index].fired = true;
    due_ = DueFault{index, point, rank};
}

// ---- deciding ------------------------------------------------------------------------------

void FaultPlan::on(const CrashPointPassed& e) {
    const auto index = static_cast<std::size_t>(e.point);
    const auto passes = ++passes_[index][static_cast<std::size_t>(e.rank)];
    if (aimed_due_ && e.rank == 0) {
        fire(*aimed_due_, e.point, 0);
        aimed_due_.reset();
        return;
    }
    if ((armed_points_ & (1U << index)) == 0) {
        return;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (plan_[i].fired || fault.action != FaultAction::crash || fault.aim != FaultAim::none ||
            fault.point != e.point) {
            continue;
        }
        const int target_rank = fault.scope == CrashScope::job ? 0 : fault.rank;
        if (target_rank == e.rank && passes == fault.occurrence) {
            fire(i, e.point, e.rank);
            return;
        }
    }
}

void FaultPlan::reach_moment(FaultAim aim) noexcept {
    const auto seen = ++moments_[static_cast<std::size_t>(aim)];
    for (std::size_t i = 0; i < plan_.size() && !aimed_due_; ++i) {
        const auto& fault = scenario_.faults[i];
        if (!plan_[i].fired && fault.action == FaultAction::crash && fault.aim == aim &&
            fault.occurrence == seen) {
            aimed_due_ = i;
        }
    }
}

void FaultPlan::on(const DecisionMade& e) noexcept {
    if (has_aimed_ && e.decision.should_stop) {
        reach_moment(FaultAim::after_stop_decision);
    }
}

// The flags on_evaluate handed back say what was decided: a stop it turned on, or neither a save
// nor a stop (a lower score or a tie, which the round persisted before returning).
void FaultPlan::on(const EvaluationReturned& e) noexcept {
    if (!has_aimed_ || e.rank != 0) {
        return;
    }
    if (e.stops && !e.stops_before) {
        reach_moment(FaultAim::after_stop_persisted);
    } else if (!e.saves && !e.stops) {
        reach_moment(FaultAim::after_sidecar_lower);
    }
}

// Ranks leave a collective one at a time, in the chooser's order, and each reports its state
// before it can yield again: a report names the collective it left.
void FaultPlan::on(const RankStateShared& e) noexcept {
    const auto bit = 1U << static_cast<unsigned>(e.rank);
    if (broadcast_.sequence != e.sequence) {
        broadcast_ = {e.sequence, 0};
    }
    broadcast_.left |= bit;
    const auto everyone = (1U << static_cast<unsigned>(scenario_.job.ranks)) - 1U;
    if (broadcast_.left == everyone || due_) {
        return;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (!plan_[i].fired && fault.action == FaultAction::rank_death &&
            fault.aim == FaultAim::mid_broadcast && rank_zero_step_ >= fault.at_step) {
            mid_broadcast_victims_ = everyone & ~broadcast_.left;
            fire(i, CrashPoint::step_end, e.rank);
            return;
        }
    }
}

void FaultPlan::on(const StepFinished& e) {
    if (e.rank == 0) {
        rank_zero_step_ = e.global_step;
    }
    if (e.global_step < next_step_fault_) {
        return;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (plan_[i].fired || !is_step_triggered(fault) || fault.at_step > e.global_step) {
            continue;
        }
        const bool kills_itself = fault.action == FaultAction::rank_death && fault.aim == FaultAim::none;
        const int target_rank = kills_itself ? fault.rank : 0;
        if (target_rank == e.rank) {
            fire(i, CrashPoint::step_end, e.rank);
            refresh_next_step_fault();
            return;
        }
    }
}

std::optional<FaultPlan::IoFault> FaultPlan::io_fault(const FsOperation& op) {
    if (!has_io_faults_) {
        return std::nullopt;
    }
    const bool dir_fsync_after_rename = callback_rename_pending_;
    if (op.op == FsOp::rename) {
        callback_rename_pending_ = io_.renames_onto_sidecar(op) || io_.renames_onto_link(op);
    } else if (op.op == FsOp::fsync_dir) {
        callback_rename_pending_ = false;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (plan_[i].fired || fault.action != FaultAction::io_error ||
            !io_.matches(fault.target, op, dir_fsync_after_rename)) {
            continue;
        }
        if (++plan_[i].seen < fault.occurrence) {
            continue;
        }
        plan_[i].fired = true;
        io_error_fired_ = true;
        return IoFault{Fault{fault.error, op.size / 2}, fault.target};
    }
    return std::nullopt;
}

// ---- executing -----------------------------------------------------------------------------

void FaultPlan::execute(const DueFault& due, FaultTargets targets) {
    const auto& fault = scenario_.faults[due.index];
    if (fault.action == FaultAction::crash) {
        execute_crash(fault, due, targets);
    }
    execute_step_fault(fault, due, targets);
}

void FaultPlan::execute_crash(const PlannedFault& fault, const DueFault& due, FaultTargets targets) {
    if (fault.scope == CrashScope::rank) {
        targets.events.emit(CrashInjected{due.point, CrashScope::rank, fault.rank, "rank_kill"});
        targets.scheduler.kill_rank(fault.rank);  // throws RankDied on this rank
        CKPT_ASSERT(false);                       // kill_rank never returns on the rank it kills
    }
    const auto label = crash_label(fault.kind, fault.power_loss);
    targets.events.emit(CrashInjected{due.point, CrashScope::job, 0, label});
    throw SimulatedCrash("crash at " + std::string(to_string(due.point)), fault.kind, fault.power_loss);
}

void FaultPlan::corrupt_until_unreadable(SimFileSystem& fs, const std::string& path) {
    // The fault model declares corruption detectable (as a checksum would make it): damage that
    // still parses would be a silent wrong state no protocol can notice.
    for (int attempt = 0; attempt < 16; ++attempt) {
        fs.corrupt_at_rest(path, rng_);
        const auto bytes = fs.content_in(FsView::visible, path);
        if (!bytes || !json_text_is_valid(*bytes)) {
            return;
        }
    }
}

// The victim was released by the collective (its payload is in its inbox) but never returns;
// the ranks that left go on to a collective it can never join, and the watchdog judges that.
void FaultPlan::execute_mid_broadcast_death(FaultTargets targets) {
    for (int rank = 0; rank < scenario_.job.ranks; ++rank) {
        if ((mid_broadcast_victims_ & (1U << static_cast<unsigned>(rank))) != 0 &&
            targets.scheduler.is_alive(rank)) {
            targets.events.emit(RankDeathInjected{rank, true, true});
            targets.scheduler.kill_rank(rank);  // not the running rank: it returns
            return;
        }
    }
}

void FaultPlan::execute_step_fault(const PlannedFault& fault, const DueFault& due, FaultTargets targets) {
    auto& fs = targets.fs;
    if (fault.action == FaultAction::rank_death && fault.aim == FaultAim::mid_broadcast) {
        execute_mid_broadcast_death(targets);
        return;
    }
    if (fault.action == FaultAction::rank_death && fault.aim == FaultAim::blocked_in_collective) {
        targets.events.emit(RankDeathInjected{fault.rank, true});
        targets.scheduler.kill_rank(fault.rank);  // not the running rank: it returns
        return;
    }
    if (fault.action == FaultAction::rank_death) {
        targets.events.emit(RankDeathInjected{due.rank});
        targets.scheduler.kill_rank(due.rank);
        CKPT_ASSERT(false);  // kill_rank never returns on the rank it kills
    }
    if (fault.action == FaultAction::corrupt_sidecar) {
        const auto sidecar = join_path(kOutputDir, kSidecarName);
        if (fs.exists_in(FsView::visible, sidecar)) {
            corrupt_until_unreadable(fs, sidecar);
            targets.events.emit(SidecarCorrupted{sidecar});
        }
    } else if (fault.action == FaultAction::corrupt_checkpoint) {
        // The newest checkpoint that is complete on disk right now, or, on one draw in two, the one
        // final_checkpoint names: the best model, which no later save rewrites, and which a
        // resume from a newer checkpoint finds damaged behind its link.
        std::optional<std::int64_t> newest;
        std::optional<std::int64_t> linked;
        const auto link_step = visible_link_step(fs);
        for (const auto& [step, record] : targets.ledger.checkpoints) {
            const auto path = join_path(join_path(kOutputDir, checkpoint_dir_name(step)), kTrainerStateName);
            if (record.held_in(fs, FsView::visible, path)) {
                newest = step;
                linked = step == link_step ? std::optional<std::int64_t>(step) : linked;
            }
        }
        const auto target = linked && rng_.below(2) == 0 ? linked : newest;
        if (target) {
            corrupt_until_unreadable(
                fs, join_path(join_path(kOutputDir, checkpoint_dir_name(*target)), kTrainerStateName));
            targets.events.emit(CheckpointCorrupted{*target});
        }
    }
    // Preemption, and the corruptions (which only matter to the next start), end the job here.
    const auto name = std::string(to_string(fault.action));
    targets.events.emit(Preempted{name});
    throw SimulatedCrash(name, CrashKind::process_kill, PowerLossMode::strict);
}

}  // namespace ckpt::sim
