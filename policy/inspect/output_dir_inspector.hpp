#pragma once

// The inspector behind inspect_output_dir, for the two files that define it:
// output_dir_inspection.cpp (the survey, and the callback a resume rebuilds from the picked
// checkpoint) and output_dir_inspection_sidecar.cpp (the sidecar, the policy a resume holds,
// the link). Internal to policy/inspect; the public entry point is output_dir_inspection.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/inspect/inspection_report.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/resume_point.hpp"
#include "policy/ports/collective.hpp"
#include "policy/ports/read_only_file_system.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt::inspect_detail {

using nlohmann::json;

class Inspector {
  public:
    Inspector(FileSystem& fs, std::string output_dir) : fs_(fs), dir_(std::move(output_dir)) {
        report_.output_dir = dir_;
    }

    OutputDirInspection run();

  private:
    void problem(std::string kind, std::string message) {
        report_.problems.push_back({std::move(kind), std::move(message)});
    }
    void note(std::string kind, std::string message) {
        report_.notes.push_back({std::move(kind), std::move(message)});
    }
    std::string path_of(std::string_view name) const { return join_path(dir_, name); }

    void require_readable_directory();
    void survey_names();
    void survey_checkpoints();

    // Not a torn save: the directory was renamed or copied. The callback's commit rule refuses
    // it, yet Transformers' get_last_checkpoint goes by the name and resumes from it regardless.
    void report_step_mismatch(const CheckpointEntry& entry, std::int64_t recorded, bool is_newest);
    void survey_temp_files();

    // ---- the resume ------------------------------------------------------------------------------

    // Where Transformers' get_last_checkpoint resumes, and where the fixed rule would.
    std::optional<CheckpointEntry> newest_checkpoint() {
        return pick_resume_checkpoint(fs_, dir_, ResumeSourceRule::newest_directory);
    }
    std::optional<CheckpointEntry> newest_complete_checkpoint() {
        return pick_resume_checkpoint(fs_, dir_, ResumeSourceRule::newest_complete);
    }

    void forecast_resume();
    void fail_resume(const std::string& why);

    // Rebuilds the trigger callback as Transformers' _load_callback_state would from the
    // checkpoint's trainer_state.json, or records why the resume would raise.
    void load_checkpoint_callback(const CheckpointEntry& checkpoint, bool is_pick);
    void adopt_saved_state(const CheckpointEntry& checkpoint, json saved, bool is_pick);

    // ---- the sidecar -------------------------------------------------------------------------------

    // With no callback state in a checkpoint, the resumed callback is the configured one. The
    // sidecar's own settings are the best guess of that configuration.
    void configure_from_sidecar(const json& policy_state);
    void check_sidecar();

    // ---- the policy a resume holds -----------------------------------------------------------------

    void check_policy_outcome();

    // on_train_begin republishes the best, and the link update prunes like on_save does.
    void note_pruning();
    void check_final_checkpoint();
    ReadOnlyFileSystem fs_;
    SingleProcessCollective collective_;
    std::string dir_;
    std::vector<std::string> names_;
    OutputDirInspection report_;
    std::optional<TriggerCallback> callback_;
    std::string callback_source_;
    bool sidecar_source_ = false;
    std::optional<std::int64_t> retained_best_;
};

}  // namespace ckpt::inspect_detail
