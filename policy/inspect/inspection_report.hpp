#pragma once

// The types of an `inspect` report, shared by the inspector and its helpers (the link verdict,
// the ignored-sidecar explanation) so none of them includes another's header. Plain data; the
// JSON form is output_dir_inspection_json.cpp's. Depends on nlohmann::json only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt {

// One finding. `kind` is a stable identifier for scripts; `message` says what it means and
// what to do.
struct InspectionFinding {
    std::string kind;
    std::string message;
};

struct InspectedCheckpoint {
    std::string name;
    std::int64_t step = 0;
    bool complete = false;
    std::string detail;  // why it is incomplete; empty when complete
    // Its trainer_state.json parses but records another global_step: every file is there, yet
    // it is not a complete checkpoint-N (a renamed or copied directory).
    std::optional<std::int64_t> recorded_global_step;
};

// What `trainer.train(resume_from_checkpoint=True)` would do.
struct ResumeForecast {
    // get_last_checkpoint's pick: the largest N, complete or not.
    std::optional<std::string> checkpoint;
    bool complete = false;
    // When the pick's trainer_state.json records another step: Transformers resumes anyway, at
    // that global_step, with the weights in the directory it picked.
    std::optional<std::int64_t> recorded_global_step;
    // The policy state_dict the callback holds after on_train_begin; nullopt when the resume
    // fails or no callback state is known.
    std::optional<nlohmann::json> policy_state;
    std::string source = "none";  // "checkpoint", "sidecar" or "none"
    // Why the resume would raise before training (empty when it would not).
    std::string failure;
    // When the resume fails on an incomplete checkpoint: the checkpoint a resume would use
    // once the incomplete ones are moved aside.
    std::optional<std::string> fallback_checkpoint;
};

struct SidecarStatus {
    bool present = false;
    std::optional<std::int64_t> evaluation_count;  // when readable
    bool restored = false;                         // a resume adopts it
    std::optional<int> version;                    // as on disk, when one this build reads (1 or 2)
    // When well formed: the last counted step (version 2), nullopt when unknown.
    std::optional<std::int64_t> last_evaluated_step;
};

struct FinalCheckpointStatus {
    std::optional<std::string> target;  // the link's text, verbatim
    bool valid = false;                 // a symlink naming a complete checkpoint of this directory
};

struct OutputDirInspection {
    std::string output_dir;
    std::vector<InspectedCheckpoint> checkpoints;
    ResumeForecast resume;
    SidecarStatus sidecar;
    FinalCheckpointStatus final_checkpoint;
    std::vector<std::string> temp_files;
    std::vector<InspectionFinding> problems;  // each one makes the directory inconsistent
    std::vector<InspectionFinding> notes;     // worth knowing, not wrong

    bool consistent() const noexcept { return problems.empty(); }
    // The `--json` document: checkpoints, resume, sidecar, final_checkpoint, temp_files,
    // problems, notes, consistent, output_dir.
    nlohmann::json to_json() const;
};

}  // namespace ckpt
