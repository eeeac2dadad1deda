// P12's two ledger checks: a stop replays the decision's whole history (root to node) through
// reference_policy, which shares no code with the policy, and a damaged sidecar must fail the
// resume that reads it.
#include "sim/checks/liveness_checker.hpp"

#include <utility>
#include <vector>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/reference_policy.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

void LivenessChecker::on(const IncarnationBegan&) {
    damaged_sidecar_at_start_ = context_.ledger.sidecar_damaged &&
                                context_.fs.exists_in(FsView::visible, join_path(kOutputDir, kSidecarName));
}

void LivenessChecker::on(const TrainBegan& e) {
    if (damaged_sidecar_at_start_) {
        damaged_sidecar_at_start_ = false;
        context_.violate(Property::P12, "the resume read a damaged sidecar and went on with " +
                                            describe(e.restored) +
                                            " instead of failing with the sidecar restore error");
    }
}

void LivenessChecker::check_stop_is_due(const DecisionMade& e) {
    const auto& ledger = context_.ledger;
    std::vector<std::pair<double, std::int64_t>> history;  // newest first
    for (int node = ledger.current_node; node != kRootNode;
         node = ledger.evaluations[static_cast<std::size_t>(node)].parent) {
        const auto& decision = ledger.evaluations[static_cast<std::size_t>(node)];
        history.emplace_back(decision.score, decision.step);
    }
    CheckpointEvaluationState state;
    if (baseline_) {  // the seed's baseline rule: an external best at step 0
        state.best_score = *baseline_;
        state.best_step = 0;
        state.best_is_external = true;
    }
    bool due = false;
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
        const auto outcome =
            reference_observe(context_.scenario.callbacks.policy, state, it->first, it->second);
        state = outcome.after;
        due = outcome.should_stop;
    }
    if (!due) {
        context_.violate(Property::P12,
                         "the policy stopped at step " + std::to_string(e.step) +
                             " but its history has not run out of patience: " + describe(state));
    }
}

}  // namespace ckpt::sim
