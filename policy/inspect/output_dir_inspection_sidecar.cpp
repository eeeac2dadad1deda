// The second half of the inspector: the sidecar a resume reads after the checkpoint, the policy
// state the resumed callback then holds, and the final_checkpoint link judged against it. As in
// the first half, every rule is asked of the callback itself, never restated here.
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/formats/sidecar_format.hpp"
#include "policy/inspect/final_checkpoint_inspection.hpp"
#include "policy/inspect/foreign_content.hpp"
#include "policy/inspect/ignored_sidecar_explanation.hpp"
#include "policy/inspect/output_dir_inspector.hpp"
#include "policy/output_dir/checkpoint_completeness.hpp"
#include "policy/output_dir/final_checkpoint_link.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt::inspect_detail {

namespace {

std::string plural(std::int64_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

void Inspector::configure_from_sidecar(const json& policy_state) {
    TriggerCallbackConfig config;
    config.output_dir = dir_;
    config.policy =
        CheckpointEvaluationPolicy::from_loose_settings(policy_state.value("patience", json(3)),
                                                        policy_state.value("tie_policy", json("reset")),
                                                        policy_state.value("patience_start_step", json(0)))
            .settings();
    callback_.emplace(config, fs_, collective_);
}

void Inspector::check_sidecar() {
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

void Inspector::check_policy_outcome() {
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
                "the policy already requested a stop after " + plural(state.evaluation_count, "evaluation") +
                    " (patience " + std::to_string(callback_->policy().settings().patience) +
                    "): a resume restores the stop and exits without training. Keep the best checkpoint "
                    "(final_checkpoint), or start a new run to train further.");
    }
    if (state.best_step && !state.best_is_external) {
        retained_best_ = *state.best_step;
        if (!is_complete_checkpoint(fs_, dir_, *state.best_step)) {
            problem("best_checkpoint_missing",
                    "the restored policy names best " + checkpoint_dir_name(*state.best_step) +
                        ", which is not a complete checkpoint: " +
                        why_checkpoint_is_incomplete(fs_, dir_, *state.best_step) +
                        ". The callback cannot keep or link it as the best model.");
            retained_best_.reset();
        }
    }
    if (retained_best_) {
        note_pruning();
    }
}

void Inspector::note_pruning() {
    const auto limit = callback_->config().save_total_limit;
    const auto pruned = checkpoints_pruned_by_link(list_checkpoints(fs_, dir_), *retained_best_, limit);
    if (pruned.empty()) {
        return;
    }
    std::string doomed;
    for (const auto& checkpoint : pruned) {
        doomed += (doomed.empty() ? "" : ", ") + checkpoint.name;
    }
    note("resume_prunes", "a resume deletes " + doomed + " (older than the best, beyond save_total_limit " +
                              std::to_string(limit) + "); copy them elsewhere first if you need them.");
}

void Inspector::check_final_checkpoint() {
    auto verdict = inspect_final_checkpoint(fs_, dir_, retained_best_);
    report_.final_checkpoint = std::move(verdict.status);
    for (auto& finding : verdict.problems) {
        report_.problems.push_back(std::move(finding));
    }
}

}  // namespace ckpt::inspect_detail
