// P5 (and the link half of it, P4, after a restore) over the ledger and the visible disk.
// Reads only.
#include "sim/checks/commit_checker.hpp"

#include <string>

#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {

using nlohmann::json;

void CommitChecker::on(const ResumeSourceChosen& e) {
    if (!e.complete && context_.scenario.trainer.resume_rule == ResumeRule::fixed) {
        context_.violate(Property::P5, "the job resumed from checkpoint-" + std::to_string(e.step) +
                                           ", which is not complete");
    }
}

// The simulator saw the newest loadable checkpoint before the rule ran; an older pick (or none)
// throws away the training since, and removes the newer checkpoints with it.
void CommitChecker::on(const FixedResumeRuleReturned& e) {
    if (e.chosen == e.newest_loadable) {
        return;
    }
    const auto named = [](const std::optional<std::int64_t>& step) {
        return step ? "checkpoint-" + std::to_string(*step) : std::string("none");
    };
    context_.violate(Property::P5,
                     std::string("the fixed resume rule ") +
                         (e.chosen ? "resumed from " + named(e.chosen) : "started from scratch") +
                         " while the newest complete checkpoint with whole weights was " +
                         named(e.newest_loadable));
}

// Judged on the state the ledger says the resume restores (lineage.hpp), not on the policy's
// report: a policy that restored anything else is judged by what it then decides and writes.
void CommitChecker::on(const TrainBegan&) {
    // Recovery has run: a link to a checkpoint that is not complete (a damaged target included)
    // misleads every reader from here on, whatever the ledger knows of the restore.
    if (const auto link = visible_link_step(context_.fs);
        link && !checkpoint_is_complete(context_.fs, context_.ledger, *link)) {
        context_.violate(Property::P4, "after on_train_begin final_checkpoint names checkpoint-" +
                                           std::to_string(*link) + ", which is not complete");
        return;
    }
    if (context_.ledger.prior_unknown) {
        return;
    }
    const auto& restored = context_.ledger.expected_state;
    if (!restored.best_step || restored.best_is_external) {
        return;
    }
    // A retired record (LedgerWriter::retire_unreachable_checkpoints) is one whose checkpoint no
    // view can show, so it is never complete: the score comparison below never misses it.
    const auto& checkpoints = context_.ledger.checkpoints;
    const auto record = checkpoints.find(*restored.best_step);
    if (!checkpoint_is_complete(context_.fs, context_.ledger, *restored.best_step)) {
        context_.violate(Property::P5, "the restored best_step " + std::to_string(*restored.best_step) +
                                           " names an incomplete checkpoint");
    } else if (record != checkpoints.end() && record->second.score != *restored.best_score) {
        context_.violate(Property::P5, "the restored best names checkpoint-" +
                                           std::to_string(*restored.best_step) + " with score " +
                                           json(*restored.best_score).dump() + ", but that checkpoint" +
                                           " was written for score " + json(record->second.score).dump() +
                                           " (a record from an abandoned history)");
    } else if (visible_link_step(context_.fs) != restored.best_step) {
        context_.violate(Property::P4,
                         "after on_train_begin final_checkpoint does not name the retained best checkpoint-" +
                             std::to_string(*restored.best_step));
    }
}

}  // namespace ckpt::sim
