// Puts into words why a resume passed over a readable sidecar, for `ckptsim inspect`. The reason
// is always judge_sidecar_adoption's, never a second rule. Reads only; depends on core/,
// inspect/ and the FileSystem port.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/inspect/inspection_report.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

// Why TriggerCallback::load passed over a readable sidecar, for `ckptsim inspect`, in words. The
// reason itself is judge_sidecar_adoption's (trigger/sidecar_adoption.hpp), the rule load
// applies; each means something different to the user: an older sidecar is repaired by the next
// resume, while a newer one whose best never committed loses evaluations.
//
// `sidecar_state` is the sidecar's checkpoint_eval_state (already accepted by load's
// validation); `resumed` the policy the resume holds without it (nullptr for a fresh start),
// restored from `resumed_from` (a checkpoint name). Nothing when the two simply agree.
std::optional<InspectionFinding> explain_ignored_sidecar(FileSystem& fs, const std::string& output_dir,
                                                         const nlohmann::json& sidecar_state,
                                                         const CheckpointEvaluationPolicy* resumed,
                                                         const std::string& resumed_from);

}  // namespace ckpt
