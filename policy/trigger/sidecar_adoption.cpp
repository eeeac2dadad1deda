// The adoption rules of sidecar_adoption.hpp, over the checkpoint rules of output_dir. The
// checks read the checkpoint in the same order TriggerCallback::load always has.
#include "policy/trigger/sidecar_adoption.hpp"

#include "policy/base/mutants.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"

namespace ckpt {
namespace {

using mutants::Mutant;

// Whether the sidecar's best was committed: an external best has no checkpoint to check.
SidecarAdoption commit_verdict(FileSystem& fs, const std::string& output_dir,
                               const CheckpointEvaluationState& sidecar) {
    if (sidecar.best_is_external) {
        return SidecarAdoption::adopted;
    }
    if (!sidecar.best_step || !is_complete_checkpoint(fs, output_dir, *sidecar.best_step)) {
        return SidecarAdoption::uncommitted_best;
    }
    if (!checkpoint_records_best(fs, output_dir, *sidecar.best_step, *sidecar.best_score)) {
        return SidecarAdoption::best_mismatch;
    }
    return SidecarAdoption::adopted;
}

}  // namespace

SidecarAdoption judge_sidecar_adoption(FileSystem& fs, const std::string& output_dir,
                                       const CheckpointEvaluationState& sidecar,
                                       std::int64_t restored_evaluations) {
    const bool newer = sidecar.evaluation_count > restored_evaluations;
    if (!newer && !mutants::is_active(Mutant::sidecar_rollback)) {
        return SidecarAdoption::not_newer;
    }
    // The check runs (and reads the checkpoint) even when the mutant then ignores it.
    const auto verdict = commit_verdict(fs, output_dir, sidecar);
    if (verdict != SidecarAdoption::adopted && mutants::is_active(Mutant::sidecar_without_commit_check)) {
        return SidecarAdoption::adopted;
    }
    return verdict;
}

}  // namespace ckpt
