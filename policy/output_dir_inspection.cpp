#include "policy/output_dir_inspection.hpp"

#include <cerrno>
#include <stdexcept>
#include <utility>

#include "policy/checkpoint_layout.hpp"
#include "policy/collective.hpp"
#include "policy/document_migrations.hpp"
#include "policy/errors.hpp"
#include "policy/final_checkpoint_link.hpp"
#include "policy/python_values.hpp"
#include "policy/trigger_callback.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

constexpr const char* kCallbackClass = "CheckpointEvaluationTriggerCallback";
constexpr std::string_view kLinkTempPrefix = ".final_checkpoint.tmp";

// Lets the real callback code read the directory and refuses anything else, so a bug in the
// forecast can never turn `inspect` into a writer.
class ReadOnlyFileSystem final : public FileSystem {
  public:
    explicit ReadOnlyFileSystem(FileSystem& inner) : inner_(inner) {}

    std::string read_file(const std::string& path) override { return inner_.read_file(path); }
    std::vector<std::string> list_dir(const std::string& path) override { return inner_.list_dir(path); }
    bool exists(const std::string& path) override { return inner_.exists(path); }
    bool is_dir(const std::string& path) override { return inner_.is_dir(path); }
    bool is_symlink(const std::string& path) override { return inner_.is_symlink(path); }
    std::string readlink(const std::string& path) override { return inner_.readlink(path); }

    void write_file(const std::string& path, std::string_view) override { refuse("write_file", path); }
    void fsync_file(const std::string& path) override { refuse("fsync_file", path); }
    void fsync_dir(const std::string& path) override { refuse("fsync_dir", path); }
    void rename(const std::string& from, const std::string&) override { refuse("rename", from); }
    void unlink(const std::string& path) override { refuse("unlink", path); }
    void mkdir(const std::string& path) override { refuse("mkdir", path); }
    void remove_tree(const std::string& path) override { refuse("remove_tree", path); }
    void symlink(const std::string&, const std::string& link_path) override { refuse("symlink", link_path); }

  private:
    [[noreturn]] static void refuse(const char* operation, const std::string& path) {
        throw std::logic_error(std::string("inspect must not modify the output directory: ") + operation +
                               " " + path);
    }
    FileSystem& inner_;
};

std::string plural(std::int64_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// Why checkpoint-N fails the completeness rule, in words a person can check.
std::string incompleteness(FileSystem& fs, const std::string& directory, std::int64_t step) {
    const auto path = join_path(directory, kTrainerStateName);
    if (!fs.exists(path)) {
        return "trainer_state.json is missing (the save was interrupted before its last write)";
    }
    std::string text;
    try {
        text = fs.read_file(path);
    } catch (const FileSystemError& error) {
        return std::string("trainer_state.json cannot be read: ") + error.what();
    }
    const auto state = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (state.is_discarded()) {
        return "trainer_state.json is not valid JSON (a torn write)";
    }
    const auto global_step = state.is_object() ? state.find("global_step") : state.end();
    if (!state.is_object() || global_step == state.end() || !global_step->is_number_integer()) {
        return "trainer_state.json has no integer global_step";
    }
    return "trainer_state.json records global_step " + global_step->dump() + ", not " + std::to_string(step);
}

bool complete_checkpoint(FileSystem& fs, const std::string& output_dir, std::int64_t step) {
    try {
        return is_complete_checkpoint(fs, output_dir, step);
    } catch (const FileSystemError&) {
        return false;  // unreadable trainer_state.json: a resume could not load it either
    }
}

std::optional<json> parse_object_file(FileSystem& fs, const std::string& path) {
    try {
        auto document = json::parse(fs.read_file(path), nullptr, /*allow_exceptions=*/false);
        return document.is_object() ? std::optional(std::move(document)) : std::nullopt;
    } catch (const FileSystemError&) {
        return std::nullopt;
    }
}

class Inspector {
  public:
    Inspector(FileSystem& fs, std::string output_dir) : fs_(fs), dir_(std::move(output_dir)) {
        report_.output_dir = dir_;
    }

    OutputDirInspection run() {
        require_readable_directory();
        survey_checkpoints();
        survey_temp_files();
        forecast_resume();
        check_sidecar();
        check_policy_outcome();
        check_final_checkpoint();
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

    void survey_checkpoints() {
        const auto newest = last_checkpoint(fs_, dir_);
        for (const auto& entry : list_checkpoints(fs_, dir_)) {
            InspectedCheckpoint checkpoint{
                entry.name, entry.step, complete_checkpoint(fs_, dir_, entry.step), {}};
            if (!checkpoint.complete) {
                checkpoint.detail = incompleteness(fs_, path_of(entry.name), entry.step);
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
            if (name.rfind(kSidecarTempPrefix, 0) == 0 || name.rfind(kLinkTempPrefix, 0) == 0) {
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

    void forecast_resume() {
        auto& resume = report_.resume;
        const auto pick = last_checkpoint(fs_, dir_);
        if (!pick) {
            return;
        }
        resume.checkpoint = pick->name;
        resume.complete = complete_checkpoint(fs_, dir_, pick->step);
        load_checkpoint_callback(*pick, /*is_pick=*/true);
        if (resume.failure.empty()) {
            return;
        }
        // The resume fails: judge the sidecar and the link against what a resume from the last
        // complete checkpoint would hold, which is where the user goes next.
        const auto fallback = last_complete_checkpoint(fs_, dir_);
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
            const auto why = incompleteness(fs_, directory, checkpoint.step);
            const auto fallback = last_complete_checkpoint(fs_, dir_);
            problem(
                "incomplete_resume_checkpoint",
                checkpoint.name +
                    " is the newest checkpoint, so Transformers' get_last_checkpoint picks it, but " +
                    "it is incomplete: " + why + ". Move it out of the output directory so that a resume " +
                    (fallback ? "starts from " + fallback->name : std::string("starts from scratch")) + ".");
        }
        auto trainer_state = parse_object_file(fs_, join_path(directory, kTrainerStateName));
        if (!trainer_state) {
            if (is_pick) {
                fail_resume(checkpoint.name + "/trainer_state.json cannot be loaded");
            }
            return;
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
        const auto& callbacks = (*trainer_state)["stateful_callbacks"];
        const auto entry = callbacks.is_object() ? callbacks.find(kCallbackClass) : callbacks.end();
        if (!callbacks.is_object() || entry == callbacks.end()) {
            note("no_callback_state", checkpoint.name + " holds no " + std::string(kCallbackClass) +
                                          " state; a resume starts the policy from its configuration.");
            return;
        }
        json saved = entry->is_array() ? (entry->empty() ? json() : entry->front()) : *entry;
        if (entry->is_array() && entry->size() > 1) {
            note("several_callbacks", checkpoint.name + " holds " + std::to_string(entry->size()) + " " +
                                          kCallbackClass + " states; the first one is inspected.");
        }
        adopt_saved_state(checkpoint, std::move(saved), is_pick);
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
        sidecar.present = fs_.exists(path);
        const auto payload = sidecar.present ? parse_object_file(fs_, path) : std::nullopt;
        const json* policy_state = nullptr;
        if (payload && payload->contains("checkpoint_eval_state") &&
            (*payload)["checkpoint_eval_state"].is_object()) {
            policy_state = &(*payload)["checkpoint_eval_state"];
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
        if (policy_state != nullptr) {
            explain_ignored_sidecar(*policy_state);
        }
    }

    // load() returned false: say why, since each reason means something different.
    void explain_ignored_sidecar(const json& sidecar_state) {
        const auto sidecar_policy = CheckpointEvaluationPolicy::from_state_dict(sidecar_state);
        const auto& theirs = sidecar_policy.state();
        const std::int64_t ours = callback_ ? callback_->policy().state().evaluation_count : 0;
        const std::string against = callback_ ? callback_source_ : std::string("a fresh start");
        if (theirs.evaluation_count < ours) {
            problem("sidecar_older",
                    "the sidecar records " + plural(theirs.evaluation_count, "evaluation") + " but " +
                        against + " records " + std::to_string(ours) +
                        ": the job stopped after writing the checkpoint and before on_save "
                        "committed it. A resume ignores the sidecar and on_train_begin republishes "
                        "it and final_checkpoint; nothing is lost.");
            return;
        }
        if (theirs.evaluation_count == ours) {
            if (callback_ && sidecar_state != callback_->policy().state_dict()) {
                problem("sidecar_diverged", "the sidecar and " + against + " both record " +
                                                plural(ours, "evaluation") +
                                                " but disagree on the state; a resume keeps the checkpoint's "
                                                "state and rewrites the sidecar.");
            }
            return;
        }
        const auto best = checkpoint_dir_name(theirs.best_step.value_or(0));
        const auto lost = plural(theirs.evaluation_count - ours, "evaluation");
        if (!theirs.best_step || !complete_checkpoint(fs_, dir_, *theirs.best_step)) {
            const auto why = fs_.is_dir(path_of(best)) ? "is incomplete" : "does not exist";
            problem("sidecar_uncommitted_best", "the sidecar names best " + best + ", which " + why +
                                                    ": that save never committed. A resume "
                                                    "ignores the sidecar and starts from " +
                                                    against + ", losing " + lost +
                                                    " (patience restarts from there). If " + best +
                                                    " can be recovered, restore it first.");
            return;
        }
        problem("sidecar_best_mismatch",
                "the sidecar names best " + best + " with score " + python::float_repr(*theirs.best_score) +
                    ", but " + best +
                    " records another best: the sidecar belongs to an abandoned history. A resume "
                    "ignores it and starts from " +
                    against + ", losing " + lost + ".");
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
            problem("stop_requested", "the policy already requested a stop (" +
                                          plural(state.lower_score_streak, "evaluation") +
                                          " without improvement, patience " +
                                          std::to_string(callback_->policy().settings().patience) +
                                          "): a resume restores the stop and exits without training. Keep "
                                          "final_checkpoint, or start "
                                          "a new run to train further.");
        }
        if (state.best_step && !state.best_is_external) {
            retained_best_ = *state.best_step;
            if (!complete_checkpoint(fs_, dir_, *state.best_step)) {
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
        std::vector<std::string> older;
        for (const auto& checkpoint : report_.checkpoints) {
            if (checkpoint.step < *retained_best_) {
                older.push_back(checkpoint.name);
            }
        }
        const auto limit = callback_->config().save_total_limit;
        const auto keep = static_cast<std::size_t>(limit > 1 ? limit - 1 : 0);
        if (older.size() <= keep) {
            return;
        }
        std::string doomed;
        for (std::size_t i = 0; i + keep < older.size(); ++i) {
            doomed += (doomed.empty() ? "" : ", ") + older[i];
        }
        note("resume_prunes", "a resume deletes " + doomed +
                                  " (older than the best, beyond save_total_limit " + std::to_string(limit) +
                                  "); copy them elsewhere first if you need them.");
    }

    // ---- final_checkpoint ---------------------------------------------------------------------------

    std::string relink_hint() const {
        if (!retained_best_) {
            return "";
        }
        return " A resume re-points it at " + checkpoint_dir_name(*retained_best_) +
               " in on_train_begin; to fix it now: ln -sfn " + checkpoint_dir_name(*retained_best_) + " " +
               path_of(kFinalCheckpointLink);
    }

    void check_final_checkpoint() {
        const auto link = path_of(kFinalCheckpointLink);
        auto& status = report_.final_checkpoint;
        if (!fs_.is_symlink(link)) {
            if (fs_.exists(link)) {
                problem("link_not_symlink",
                        std::string(kFinalCheckpointLink) +
                            " exists but is not a symlink, so the callback cannot replace it "
                            "atomically; move it aside.");
            } else if (retained_best_) {
                problem("link_missing", std::string(kFinalCheckpointLink) + " is missing although " +
                                            checkpoint_dir_name(*retained_best_) + " is the retained best." +
                                            relink_hint());
            }
            return;
        }
        status.target = fs_.readlink(link);
        const auto step = final_checkpoint_step(fs_, dir_);
        const auto quoted = "'" + *status.target + "'";
        if (!fs_.exists(link)) {
            problem("dangling_link", std::string(kFinalCheckpointLink) + " points at " + quoted +
                                         ", which does not exist: loading final_checkpoint fails." +
                                         relink_hint());
            return;
        }
        if (!step) {
            problem("link_foreign", std::string(kFinalCheckpointLink) + " points at " + quoted +
                                        ", which is not a checkpoint-N directory of this output directory." +
                                        relink_hint());
            return;
        }
        if (!complete_checkpoint(fs_, dir_, *step)) {
            problem("link_incomplete", std::string(kFinalCheckpointLink) + " points at " + quoted +
                                           ", which is incomplete: " +
                                           incompleteness(fs_, path_of(checkpoint_dir_name(*step)), *step) +
                                           "." + relink_hint());
            return;
        }
        status.valid = true;
        if (retained_best_ && *step != *retained_best_) {
            problem("link_not_best", std::string(kFinalCheckpointLink) + " points at " + quoted +
                                         " but the retained best is " + checkpoint_dir_name(*retained_best_) +
                                         "." + relink_hint());
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

json OutputDirInspection::to_json() const {
    auto optional_string = [](const std::optional<std::string>& value) {
        return value ? json(*value) : json();
    };
    auto findings = [](const std::vector<InspectionFinding>& list) {
        json out = json::array();
        for (const auto& finding : list) {
            out.push_back({{"kind", finding.kind}, {"message", finding.message}});
        }
        return out;
    };
    json listed = json::array();
    for (const auto& checkpoint : checkpoints) {
        listed.push_back({{"name", checkpoint.name},
                          {"step", checkpoint.step},
                          {"complete", checkpoint.complete},
                          {"detail", checkpoint.complete ? json() : json(checkpoint.detail)}});
    }
    return {
        {"output_dir", output_dir},
        {"consistent", consistent()},
        {"checkpoints", std::move(listed)},
        {"resume",
         {{"checkpoint", optional_string(resume.checkpoint)},
          {"complete", resume.complete},
          {"policy_state", resume.policy_state ? *resume.policy_state : json()},
          {"source", resume.source},
          {"fails", !resume.failure.empty()},
          {"failure", resume.failure.empty() ? json() : json(resume.failure)},
          {"fallback_checkpoint", optional_string(resume.fallback_checkpoint)}}},
        {"sidecar",
         {{"present", sidecar.present},
          {"evaluation_count", sidecar.evaluation_count ? json(*sidecar.evaluation_count) : json()},
          {"restored", sidecar.restored}}},
        {"final_checkpoint",
         {{"target", optional_string(final_checkpoint.target)}, {"valid", final_checkpoint.valid}}},
        {"temp_files", temp_files},
        {"problems", findings(problems)},
        {"notes", findings(notes)},
    };
}

}  // namespace ckpt
