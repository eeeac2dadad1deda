// How ranks ended: the outcome types' names, the per-rank report of a run and the diagnosis of a
// hang, read from the scheduler's state once no rank can run. Kept apart from the fiber machinery;
// depends on the scheduler's private state (rank_scheduler_impl.hpp) only to read it.
#include <string>
#include <utility>

#include "sim/base/assert.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/ranks/rank_scheduler_impl.hpp"

namespace ckpt::sim {

const char* to_string(CollectiveKind kind) noexcept {
    return kind == CollectiveKind::barrier ? "barrier" : "broadcast";
}

const char* to_string(RankOutcome::Kind kind) noexcept {
    switch (kind) {
        case RankOutcome::Kind::finished:
            return "finished";
        case RankOutcome::Kind::failed:
            return "failed";
        case RankOutcome::Kind::dead:
            return "dead";
        case RankOutcome::Kind::hung:
            return "hung";
    }
    return "unknown";
}

bool RunResult::all_finished() const noexcept {
    for (const RankOutcome& outcome : ranks) {
        if (outcome.kind != RankOutcome::Kind::finished) {
            return false;
        }
    }
    return true;
}

std::string RunResult::describe() const {
    std::string text;
    if (hung()) {
        text += "hang: " + hang + "\n";
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const RankOutcome& outcome = ranks[r];
        text += "rank " + std::to_string(r) + ": " + to_string(outcome.kind);
        if (outcome.waiting) {
            const WaitPoint& at = *outcome.waiting;
            text += std::string(" in ") + to_string(at.kind);
            if (at.kind == CollectiveKind::broadcast) {
                text += "(src " + std::to_string(at.src) + ")";
            }
            text += " #" + std::to_string(at.sequence) + " at \"" + at.label + "\"";
        } else if (outcome.kind != RankOutcome::Kind::finished) {
            text += " after " + std::to_string(outcome.collectives) + " collectives: " + outcome.message;
        }
        text += "\n";
    }
    return text;
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
        outcome.thrown = slot.thrown;
        switch (slot.state) {
            case RankState::finished:
                outcome.kind = RankOutcome::Kind::finished;
                break;
            case RankState::failed:
                outcome.kind = RankOutcome::Kind::failed;
                break;
            case RankState::dead:
                outcome.kind = RankOutcome::Kind::dead;
                break;
            case RankState::ready:  // unreachable: run() collects only once nothing is runnable
            case RankState::blocked:
                // A rank blocks only inside a collective, and a killed one is dead, not blocked.
                CKPT_ASSERT(slot.state == RankState::blocked && rv.open &&
                            (rv.arrived & rank_bit(int(r))) != 0);
                outcome.kind = RankOutcome::Kind::hung;
                outcome.waiting = slot.wait;
                any_hung = true;
                break;
        }
    }
    if (any_hung) {
        result.hang = diagnose_hang();
        bool awaits_dead = false;
        bool awaits_live = false;
        for (int r = 0; r < config.world_size; ++r) {
            if ((rv.arrived & rank_bit(r)) == 0) {
                (slot_of(r).state == RankState::dead ? awaits_dead : awaits_live) = true;
            }
        }
        result.hang_awaits_dead_rank = awaits_dead && !awaits_live;
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
        if ((rv.arrived & rank_bit(r)) != 0) {
            continue;
        }
        const Slot& slot = slot_of(r);
        why += separator;
        why += "rank " + std::to_string(r);
        if (r == rv.src) {
            why += " (the root)";
        }
        switch (slot.state) {
            case RankState::dead:
                why += " is dead";
                break;
            case RankState::failed:
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

WatchdogTimeout::WatchdogTimeout(RunResult result)
    : JobCrash("watchdog timeout: " + result.hang), result_(std::move(result)) {}

}  // namespace ckpt::sim
