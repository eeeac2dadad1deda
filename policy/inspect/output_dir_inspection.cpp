// The inspector: it surveys the directory, then replays a resume with the real callback over
// a read-only view. Every rule (resume picks, temp names, pruning, sidecar shape and adoption)
// is asked of output_dir, formats and trigger, never restated here.
#include "policy/inspect/output_dir_inspection.hpp"

#include <cerrno>
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/base/untrusted_json.hpp"
#include "policy/formats/document_migrations.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/formats/sidecar_format.hpp"
#include "policy/inspect/final_checkpoint_inspection.hpp"
#include "policy/inspect/foreign_content.hpp"
#include "policy/inspect/ignored_sidecar_explanation.hpp"
#include "policy/output_dir/checkpoint_completeness.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/final_checkpoint_link.hpp"
#include "policy/output_dir/resume_point.hpp"
#include "policy/ports/collective.hpp"
#include "policy/ports/read_only_file_system.hpp"
#include "policy/python/python_values.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

const std::string kCallbackClass(kTriggerCallbackClass);

std::string plural(std::int64_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// A trainer_state.json parsed under untrusted_json's limits, or why it was refused.
struct ParsedObject {
    std::optional<json> document;
    std::string refusal;
};

ParsedObject parse_object_file(FileSystem& fs, const std::string& path, const std::string& shown) {
    try {
        auto document = parse_untrusted_json(fs.read_file(path), shown);
        if (!document.is_object()) {
            return {std::nullopt,
                    shown + ": the top level is a " + std::string(document.type_name()) + ", not an object"};
        }
        return {std::move(document), {}};
    } catch (const MalformedJson& error) {
        return {std::nullopt, error.what()};
    } catch (const FileSystemError& error) {
        return {std::nullopt, error.what()};
    }
}

class Inspector {
  public:
    Inspector(FileSystem& fs, std::string output_dir) : fs_(fs), dir_(std::move(output_dir)) {
        report_.output_dir = dir_;
    }

    OutputDirInspection run() {
        require_readable_directory();
        // Past the listing, an entry that cannot be read (no permission, a symlink loop, a
        // device) is a finding about that entry: the report so far still stands.
        try {
            survey_names();
            survey_checkpoints();
            survey_temp_files();
            forecast_resume();
            check_sidecar();
            check_policy_outcome();
            check_final_checkpoint();
        } catch (const FileSystemError& error) {
            problem("unreadable_entry", std::string(error.what()) +
                                            ". The inspection stopped here; fix the "
                                            "permissions or remove the entry.");
        }
        return std::move(report_);
    }

  private:
    void problem(std::string kind, std::string message) {
        report_.problems.push_back({std::move(kind), std::move(message)});
    }
    void note(std::string kind, std::string message) {
        report_.notes.push_back({std::move(kind), std::move(message)});
    }
    std::string path_of(std::string_view name) const { return join_path(dir_, name); }

    void require_readable_directory() {
        if (!fs_.is_dir(dir_)) {
            throw FileSystemError("inspect", dir_,
                                  fs_.exists(dir_) || fs_.is_symlink(dir_) ? ENOTDIR : ENOENT);
        }
        names_ = fs_.list_dir(dir_);
    }

    void survey_names() {
        for (const auto& name : names_) {
            if (name.rfind("checkpoint-", 0) != 0) {
                continue;
            }
            if (!fs_.is_dir(path_of(name))) {
                problem("foreign_entry", name +
                                             " is not a directory (a file, or a symlink that leads nowhere): "
                                             "Transformers and ckptsim both skip it, but nothing the Trainer "
                                             "writes looks like it. Move it out.");
                continue;
            }
            if (const auto defect = checkpoint_name_defect(name); !defect.empty()) {
                problem("unusual_checkpoint_name", name + ": " + defect + ". Rename or move it.");
            }
        }
    }

    void survey_checkpoints() {
        const auto all = list_checkpoints(fs_, dir_);
        const auto newest = all.empty() ? std::nullopt : std::optional(all.back());
        for (const auto& entry : all) {
            InspectedCheckpoint checkpoint{
                entry.name, entry.step, is_complete_checkpoint(fs_, dir_, entry.step), {}};
            if (!checkpoint.complete) {
                checkpoint.detail = why_checkpoint_is_incomplete(fs_, dir_, entry.step);
                if (newest && newest->step != entry.step) {
                    problem("incomplete_checkpoint",
                            entry.name + " is incomplete: " + checkpoint.detail +
                                ". A resume does not use it, but it is not a usable model; delete it.");
                }
            }
            report_.checkpoints.push_back(std::move(checkpoint));
        }
    }

    void survey_temp_files() {
        for (const auto& name : names_) {
            if (is_leftover_temp_name(name)) {
                report_.temp_files.push_back(name);
            }
        }
        if (report_.temp_files.empty()) {
            return;
        }
        std::string listed;
        for (const auto& name : report_.temp_files) {
            listed += (listed.empty() ? "" : ", ") + name;
        }
        problem("leftover_temp",
                "temporary files left by a writer that was killed mid-write: " + listed +
                    ". They hold no committed state; rank 0 removes the sidecar and link temp "
                    "files in on_train_begin, or delete them now.");
    }

    // ---- the resume ------------------------------------------------------------------------------

    // Where Transformers' get_last_checkpoint resumes, and where the fixed rule would.
    std::optional<CheckpointEntry> newest_checkpoint() {
        return pick_resume_checkpoint(fs_, dir_, ResumeSourceRule::newest_directory);
    }
    std::optional<CheckpointEntry> newest_complete_checkpoint() {
        return pick_resume_checkpoint(fs_, dir_, ResumeSourceRule::newest_complete);
    }

    void forecast_resume() {
        auto& resume = report_.resume;
        const auto pick = newest_checkpoint();
        if (!pick) {
            return;
        }
        resume.checkpoint = pick->name;
        resume.complete = report_.checkpoints.back().complete;
        load_checkpoint_callback(*pick, /*is_pick=*/true);
        if (resume.failure.empty()) {
            return;
        }
        // The resume fails: judge the sidecar and the link against what a resume from the last
        // complete checkpoint would hold, which is where the user goes next.
        const auto fallback = newest_complete_checkpoint();
        if (fallback && fallback->step != pick->step) {
            resume.fallback_checkpoint = fallback->name;
            load_checkpoint_callback(*fallback, /*is_pick=*/false);
        }
    }

    void fail_resume(const std::string& why) {
        if (report_.resume.failure.empty()) {
            report_.resume.failure = why;
        }
    }

    // Rebuilds the trigger callback as Transformers' _load_callback_state would from the
    // checkpoint's trainer_state.json, or records why the resume would raise.
    void load_checkpoint_callback(const CheckpointEntry& checkpoint, bool is_pick) {
        const auto directory = path_of(checkpoint.name);
        if (is_pick && !report_.resume.complete) {
            const auto why = why_checkpoint_is_incomplete(fs_, dir_, checkpoint.step);
            const auto fallback = newest_complete_checkpoint();
            problem(
                "incomplete_resume_checkpoint",
                checkpoint.name +
                    " is the newest checkpoint, so Transformers' get_last_checkpoint picks it, but " +
                    "it is incomplete: " + why + ". Move it out of the output directory so that a resume " +
                    (fallback ? "starts from " + fallback->name : std::string("starts from scratch")) + ".");
        }
        const auto shown = checkpoint.name + "/" + std::string(kTrainerStateName);
        auto parsed = parse_object_file(fs_, join_path(directory, kTrainerStateName), shown);
        if (!parsed.document) {
            // An incomplete checkpoint is already reported; a complete one the strict reader
            // refuses (a duplicate key, nesting past the cap) is foreign.
            if (is_complete_checkpoint(fs_, dir_, checkpoint.step)) {
                problem("malformed_trainer_state", parsed.refusal +
                                                       ". Transformers may read it differently "
                                                       "from ckptsim; restore it from a backup.");
            }
            if (is_pick) {
                fail_resume(shown + " cannot be loaded");
            }
            return;
        }
        auto& trainer_state = parsed.document;
        for (const auto& defect : stateful_callbacks_defects(*trainer_state)) {
            problem("malformed_stateful_callbacks",
                    shown + ": " + defect +
                        ". Transformers' _load_callback_state raises on it when "
                        "restore_callback_states_from_checkpoint is set.");
            if (is_pick) {
                fail_resume(shown + ": " + defect);
            }
        }
        try {
            if (trainer_state_migrations().version_of(*trainer_state) == 0) {
                note("trainer_state_migrated",
                     checkpoint.name +
                         "/trainer_state.json predates stateful callbacks (format version 0); it was "
                         "read through the 0 -> 1 migration and holds no callback state.");
            }
            trainer_state = migrate_trainer_state(std::move(*trainer_state));
        } catch (const ValueError& error) {
            problem("unsupported_trainer_state", checkpoint.name + "/trainer_state.json: " + error.what());
            if (is_pick) {
                fail_resume(error.what());
            }
            return;
        }
        auto saved = find_saved_trigger_callback(*trainer_state);
        if (!saved) {
            note("no_callback_state", checkpoint.name + " holds no " + kCallbackClass +
                                          " state; a resume starts the policy from its configuration.");
            return;
        }
        if (saved->copies > 1) {
            note("several_callbacks", checkpoint.name + " holds " + std::to_string(saved->copies) + " " +
                                          kCallbackClass + " states; the first one is inspected.");
        }
        adopt_saved_state(checkpoint, std::move(saved->state), is_pick);
    }

    void adopt_saved_state(const CheckpointEntry& checkpoint, json saved, bool is_pick) {
        if (saved.is_object() && saved.contains("args") && saved["args"].is_object()) {
            const auto& recorded = saved["args"]["output_dir"];
            if (recorded.is_string() && recorded.get<std::string>() != dir_) {
                note("output_dir_moved",
                     checkpoint.name + " was written for output_dir " + recorded.dump() +
                         "; a resumed callback keeps that saved output_dir, so run the resume there (this "
                         "report reads the sidecar and link of the inspected directory).");
            }
            saved["args"]["output_dir"] = dir_;
        }
        try {
            callback_.emplace(TriggerCallback::from_state(saved, fs_, collective_));
            callback_source_ = checkpoint.name;
        } catch (const std::exception& error) {
            problem("corrupt_checkpoint_state", checkpoint.name + "/trainer_state.json holds a " +
                                                    kCallbackClass + " state that cannot be restored: " +
                                                    error.what() + ". Transformers raises while loading it.");
            if (is_pick) {
                fail_resume(error.what());
            }
        }
    }

    // ---- the sidecar -------------------------------------------------------------------------------

    // With no callback state in a checkpoint, the resumed callback is the configured one. The
    // sidecar's own settings are the best guess of that configuration.
    void configure_from_sidecar(const json& policy_state) {
        TriggerCallbackConfig config;
        config.output_dir = dir_;
        config.policy =
            CheckpointEvaluationPolicy::from_loose_settings(
                policy_state.value("patience", json(3)), policy_state.value("tie_policy", json("reset")),
                policy_state.value("patience_start_step", json(0)))
                .settings();
        callback_.emplace(config, fs_, collective_);
    }

    void check_sidecar() {
        const auto path = path_of(kSidecarName);
        auto& sidecar = report_.sidecar;
        const auto document = read_sidecar(fs_, path);
        sidecar.present = document.shape != SidecarShape::missing;
        sidecar.version = document.version_on_disk;
        sidecar.last_evaluated_step = document.last_evaluated_step();
        if (fs_.is_symlink(path)) {
            problem("foreign_entry", path + " is a symlink (to '" + fs_.readlink(path) +
                                         "'); the callback only ever writes a regular file there, and a "
                                         "resume reads whatever it points at.");
        }
        for (const auto& defect : sidecar_type_defects(document.payload)) {
            problem("sidecar_wrong_type", std::string(kSidecarName) + ": " + defect +
                                              ". The callback never writes that type: the file is foreign or "
                                              "hand-edited, and a resume coerces it as Python would.");
        }
        for (const auto& field : unknown_sidecar_fields(document.payload)) {
            problem("unknown_sidecar_field", std::string(kSidecarName) + " holds the field '" + field +
                                                 "', which no version of the sidecar writes: it is foreign "
                                                 "or hand-edited, and the callback ignores it.");
        }
        const json* policy_state = document.policy_state();
        if (policy_state != nullptr) {
            const auto state = policy_state->value("state", *policy_state);
            if (state.is_object() && state.contains("evaluation_count") &&
                state["evaluation_count"].is_number()) {
                try {
                    sidecar.evaluation_count = python::to_int(state["evaluation_count"]);
                } catch (const ValueError&) {
                    // Out of range: load() below reports the sidecar as corrupt.
                }
            }
        }
        if (!sidecar.present) {
            if (callback_ && callback_->policy().state().evaluation_count > 0 &&
                !callback_->policy().state().best_is_external) {
                problem("sidecar_missing", "there is no " + std::string(kSidecarName) + " although " +
                                               callback_source_ +
                                               " records evaluations: the job stopped before its first "
                                               "on_save. A resume writes it again in on_train_begin.");
            }
            return;
        }
        const bool from_checkpoint = callback_.has_value();
        try {
            if (!callback_ && policy_state != nullptr) {
                configure_from_sidecar(*policy_state);
            }
            if (!callback_) {
                TriggerCallbackConfig config;
                config.output_dir = dir_;
                callback_.emplace(config, fs_, collective_);
            }
            sidecar.restored = callback_->load(/*is_world_process_zero=*/true);
        } catch (const std::exception& error) {
            // The policy's own messages do not say which file they are about.
            std::string what = error.what();
            if (what.find(path) == std::string::npos) {
                what = path + ": " + what;
            }
            if (!document.unreadable_reason.empty()) {
                what += " (" + document.unreadable_reason + ")";
            }
            problem("corrupt_sidecar",
                    what +
                        ". on_train_begin raises this on every rank, so a resume fails; repair "
                        "the file or move it aside (which forgets the evaluations recorded "
                        "after the last checkpoint).");
            fail_resume(error.what());
            if (!from_checkpoint) {
                callback_.reset();
            }
            return;
        }
        if (sidecar.restored) {
            sidecar_source_ = true;
            return;
        }
        if (!from_checkpoint) {
            callback_.reset();  // a fresh configuration, nothing a resume restores
        }
        if (policy_state == nullptr) {
            return;
        }
        auto finding = explain_ignored_sidecar(fs_, dir_, *policy_state,
                                               callback_ ? &callback_->policy() : nullptr, callback_source_);
        if (finding) {
            report_.problems.push_back(std::move(*finding));
        }
    }

    // ---- the policy a resume holds -----------------------------------------------------------------

    void check_policy_outcome() {
        auto& resume = report_.resume;
        if (!callback_) {
            return;
        }
        const auto& state = callback_->policy().state();
        if (resume.failure.empty()) {
            resume.policy_state = callback_->policy().state_dict();
            resume.source = sidecar_source_ ? "sidecar" : "checkpoint";
        }
        if (state.stop_requested) {
            problem("stop_requested",
                    "the policy already requested a stop after " +
                        plural(state.evaluation_count, "evaluation") + " (patience " +
                        std::to_string(callback_->policy().settings().patience) +
                        "): a resume restores the stop and exits without training. Keep the best checkpoint "
                        "(final_checkpoint), or start a new run to train further.");
        }
        if (state.best_step && !state.best_is_external) {
            retained_best_ = *state.best_step;
            if (!is_complete_checkpoint(fs_, dir_, *state.best_step)) {
                problem("best_checkpoint_missing",
                        "the restored policy names best " + checkpoint_dir_name(*state.best_step) +
                            ", which is missing or incomplete: the retained model is gone.");
                retained_best_.reset();
            }
        }
        if (retained_best_) {
            note_pruning();
        }
    }

    // on_train_begin republishes the best, and the link update prunes like on_save does.
    void note_pruning() {
        const auto limit = callback_->config().save_total_limit;
        const auto pruned = checkpoints_pruned_by_link(list_checkpoints(fs_, dir_), *retained_best_, limit);
        if (pruned.empty()) {
            return;
        }
        std::string doomed;
        for (const auto& checkpoint : pruned) {
            doomed += (doomed.empty() ? "" : ", ") + checkpoint.name;
        }
        note("resume_prunes", "a resume deletes " + doomed +
                                  " (older than the best, beyond save_total_limit " + std::to_string(limit) +
                                  "); copy them elsewhere first if you need them.");
    }

    void check_final_checkpoint() {
        auto verdict = inspect_final_checkpoint(fs_, dir_, retained_best_);
        report_.final_checkpoint = std::move(verdict.status);
        for (auto& finding : verdict.problems) {
            report_.problems.push_back(std::move(finding));
        }
    }

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

}  // namespace

OutputDirInspection inspect_output_dir(FileSystem& fs, const std::string& output_dir) {
    return Inspector(fs, output_dir).run();
}

}  // namespace ckpt
