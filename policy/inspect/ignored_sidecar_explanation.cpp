// The words for each reason judge_sidecar_adoption gives; the reasons themselves are never
// re-derived here. Reads only.
#include "policy/inspect/ignored_sidecar_explanation.hpp"

#include <optional>

#include "policy/base/errors.hpp"
#include "policy/output_dir/checkpoint_completeness.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/python/python_values.hpp"
#include "policy/trigger/sidecar_adoption.hpp"

namespace ckpt {

namespace {

std::string evaluations(std::int64_t count) {
    return std::to_string(count) + (count == 1 ? " evaluation" : " evaluations");
}

// A sidecar with no more evaluations than the resume: older is harmless, equal may disagree.
std::optional<InspectionFinding> explain_not_newer(const nlohmann::json& sidecar_state, std::int64_t theirs,
                                                   const CheckpointEvaluationPolicy* resumed,
                                                   const std::string& against) {
    const std::int64_t ours = resumed != nullptr ? resumed->state().evaluation_count : 0;
    if (theirs < ours) {
        return InspectionFinding{
            "sidecar_older", "the sidecar records " + evaluations(theirs) + " but " + against + " records " +
                                 std::to_string(ours) +
                                 ": the job stopped after writing the checkpoint and before on_save "
                                 "committed it. A resume ignores the sidecar and on_train_begin republishes "
                                 "it and final_checkpoint; nothing is lost."};
    }
    if (resumed != nullptr && sidecar_state != resumed->state_dict()) {
        return InspectionFinding{"sidecar_diverged", "the sidecar and " + against + " both record " +
                                                         evaluations(ours) +
                                                         " but disagree on the state; a resume keeps the "
                                                         "checkpoint's state and rewrites the sidecar."};
    }
    return std::nullopt;
}

}  // namespace

std::optional<InspectionFinding> explain_ignored_sidecar(FileSystem& fs, const std::string& output_dir,
                                                         const nlohmann::json& sidecar_state,
                                                         const CheckpointEvaluationPolicy* resumed,
                                                         const std::string& resumed_from) {
    const std::int64_t ours = resumed != nullptr ? resumed->state().evaluation_count : 0;
    const std::string against = resumed != nullptr ? resumed_from : std::string("scratch");
    // A state no policy would load (best_step without best_score, say) is why a resume ignores it;
    // the explanation reports it rather than throwing out of a read-only inspection.
    std::optional<CheckpointEvaluationPolicy> loaded;
    try {
        loaded.emplace(CheckpointEvaluationPolicy::from_state_dict(sidecar_state));
    } catch (const ValueError& error) {
        return InspectionFinding{
            "corrupt_sidecar", std::string("the sidecar's state is not a valid checkpoint "
                                           "evaluation state (") +
                                   error.what() + "); a resume ignores it and keeps " + against + "'s state"};
    }
    const auto& theirs = loaded->state();
    const auto best = checkpoint_dir_name(theirs.best_step.value_or(0));
    const auto lost = evaluations(theirs.evaluation_count - ours);
    switch (judge_sidecar_adoption(fs, output_dir, theirs, ours)) {
        case SidecarAdoption::adopted:
            return std::nullopt;
        case SidecarAdoption::not_newer:
            return explain_not_newer(sidecar_state, theirs.evaluation_count, resumed, against);
        case SidecarAdoption::uncommitted_best: {
            const auto why = fs.is_dir(join_path(output_dir, best))
                                 ? "is incomplete: its save never committed"
                                 : "does not exist: its save never committed, "
                                   "or it was deleted";
            return InspectionFinding{"sidecar_uncommitted_best",
                                     "the sidecar names best " + best + ", which " + why +
                                         ". A resume ignores the sidecar and starts from " + against +
                                         ", losing " + lost + " (patience restarts from there). If " + best +
                                         " can be recovered, restore it first."};
        }
        case SidecarAdoption::best_mismatch:
            return InspectionFinding{
                "sidecar_best_mismatch",
                "the sidecar names best " + best + " with score " + python::float_repr(*theirs.best_score) +
                    ", but " + best +
                    " records another best: the sidecar belongs to an abandoned history. A resume "
                    "ignores it and starts from " +
                    against + ", losing " + lost + "."};
    }
    return std::nullopt;
}

}  // namespace ckpt
