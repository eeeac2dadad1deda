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
#include "policy/inspect/output_dir_inspector.hpp"
#include "policy/output_dir/checkpoint_completeness.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/final_checkpoint_link.hpp"
#include "policy/output_dir/resume_point.hpp"
#include "policy/ports/collective.hpp"
#include "policy/ports/read_only_file_system.hpp"
#include "policy/python/python_values.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt::inspect_detail {

namespace {

const std::string kCallbackClass(kTriggerCallbackClass);

// A trainer_state.json parsed under untrusted_json's limits, or why it was refused.
struct ParsedObject {
    std::optional<json> document;
    std::string refusal;
};

ParsedObject parse_object_file(FileSystem& fs, const std::string& path, const std::string& shown) {
    try {
        // Transformers' json.loads reads the NaN and Infinity json.dumps writes for a logged grad_norm
        // of nan or inf (finding 28); nothing the doctor reads is such a number.
        auto document = parse_untrusted_json(fs.read_file(path), shown, {.python_constants_as_null = true});
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

}  // namespace

OutputDirInspection Inspector::run() {
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

void Inspector::require_readable_directory() {
    if (!fs_.is_dir(dir_)) {
        throw FileSystemError("inspect", dir_, fs_.exists(dir_) || fs_.is_symlink(dir_) ? ENOTDIR : ENOENT);
    }
    names_ = fs_.list_dir(dir_);
}

void Inspector::survey_names() {
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

void Inspector::survey_checkpoints() {
    const auto all = list_checkpoints(fs_, dir_);
    const auto newest = all.empty() ? std::nullopt : std::optional(all.back());
    for (const auto& entry : all) {
        InspectedCheckpoint checkpoint{
            entry.name, entry.step, is_complete_checkpoint(fs_, dir_, entry.step), {}, {}};
        if (!checkpoint.complete) {
            checkpoint.detail = why_checkpoint_is_incomplete(fs_, dir_, entry.step);
            checkpoint.recorded_global_step = mismatched_global_step(fs_, dir_, entry.step);
            if (checkpoint.recorded_global_step) {
                report_step_mismatch(entry, *checkpoint.recorded_global_step,
                                     newest && newest->step == entry.step);
            } else if (newest && newest->step != entry.step) {
                problem("incomplete_checkpoint",
                        entry.name + " is incomplete: " + checkpoint.detail +
                            ". A resume does not use it, but it is not a usable model; delete it.");
            }
        }
        report_.checkpoints.push_back(std::move(checkpoint));
    }
}

void Inspector::report_step_mismatch(const CheckpointEntry& entry, std::int64_t recorded, bool is_newest) {
    const auto consequence =
        is_newest ? "Transformers' get_last_checkpoint picks it by its name, and the resume continues at "
                    "global_step " +
                        std::to_string(recorded) + " with the weights saved in " + entry.name + "."
                  : std::string("A resume does not pick it.");
    problem("checkpoint_step_mismatch",
            entry.name + "/trainer_state.json records global_step " + std::to_string(recorded) +
                ": every file is there, but the directory was renamed or copied, so the callback does "
                "not count it as a saved checkpoint (not as the best, not for final_checkpoint). " +
                consequence + " Rename it to " + checkpoint_dir_name(recorded) + " or move it out.");
}

void Inspector::survey_temp_files() {
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
    problem("leftover_temp", "temporary files left by a writer that was killed mid-write: " + listed +
                                 ". They hold no committed state; rank 0 removes the sidecar and link temp "
                                 "files in on_train_begin, or delete them now.");
}

void Inspector::forecast_resume() {
    auto& resume = report_.resume;
    const auto pick = newest_checkpoint();
    if (!pick) {
        return;
    }
    resume.checkpoint = pick->name;
    resume.complete = report_.checkpoints.back().complete;
    resume.recorded_global_step = report_.checkpoints.back().recorded_global_step;
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

void Inspector::fail_resume(const std::string& why) {
    if (report_.resume.failure.empty()) {
        report_.resume.failure = why;
    }
}

void Inspector::load_checkpoint_callback(const CheckpointEntry& checkpoint, bool is_pick) {
    const auto directory = path_of(checkpoint.name);
    if (is_pick && !report_.resume.complete && !report_.resume.recorded_global_step) {
        const auto why = why_checkpoint_is_incomplete(fs_, dir_, checkpoint.step);
        const auto fallback = newest_complete_checkpoint();
        problem("incomplete_resume_checkpoint",
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
        problem("malformed_stateful_callbacks", shown + ": " + defect +
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

void Inspector::adopt_saved_state(const CheckpointEntry& checkpoint, json saved, bool is_pick) {
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

}  // namespace ckpt::inspect_detail

namespace ckpt {

OutputDirInspection inspect_output_dir(FileSystem& fs, const std::string& output_dir) {
    return inspect_detail::Inspector(fs, output_dir).run();
}

}  // namespace ckpt
