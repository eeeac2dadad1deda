// How ranks ended: the outcome types' names and the per-rank report of a run, kept apart from the
// scheduler's fiber machinery.
#include <string>
#include <utility>

#include "sim/ranks/rank_scheduler.hpp"

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

WatchdogTimeout::WatchdogTimeout(RunResult result)
    : JobCrash("watchdog timeout: " + result.hang), result_(std::move(result)) {}

}  // namespace ckpt::sim
