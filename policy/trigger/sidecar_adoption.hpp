#pragma once

// Whether a well-formed sidecar's policy state replaces the one a resume restored, and if not,
// why: the rules TriggerCallback::load applies and `ckptsim inspect` explains, kept here once.
// The retained checkpoint is the source of truth; a sidecar may add later, lower evaluations,
// but never roll the callback back or name a best that was never written. The sidecar_rollback
// and sidecar_without_commit_check mutants are checked here. Depends on core and output_dir.

#include <cstdint>
#include <string>

#include "policy/core/checkpoint_evaluation_state.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

// Each rejection is checked after the ones before it.
enum class SidecarAdoption {
    adopted,
    not_newer,         // it records no more evaluations than the restored state
    uncommitted_best,  // its best checkpoint is missing or incomplete
    best_mismatch,     // its best checkpoint records another best: an abandoned history
};

// Judges `sidecar` (the sidecar's policy state) against a restored state that has made
// `restored_evaluations` evaluations, in output_dir.
SidecarAdoption judge_sidecar_adoption(FileSystem& fs, const std::string& output_dir,
                                       const CheckpointEvaluationState& sidecar,
                                       std::int64_t restored_evaluations);

}  // namespace ckpt
