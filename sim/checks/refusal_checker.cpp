// The refusal rules of refusal_checker.hpp, restated from TrainingArguments' meaning: which
// settings let Transformers keep or save another checkpoint than the callback's.
#include "sim/checks/refusal_checker.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/json_scanner.hpp"
#include "sim/checks/top_level_fields.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

// The callback's own metric: what Transformers may track without a best of its own.
constexpr std::string_view kCallbackMetric = "score";

// What a refusal rule reads of Transformers' stored stateful_callbacks, as the resume's checkpoint
// holds them, keyed by class name whatever the callbacks' own state keys. Only the member's names
// and kinds are read: the rest of the file, log_history above all, and the states themselves (an
// appending refresh makes them long) are validated but not built.
struct StoredCallbacks {
    // A list under a class name is several callbacks of that class.
    bool several_of_one_class = false;
    // The appending refresh indexes the checkpoint's stateful_callbacks by class name, so a
    // resumed configuration with early-stopping callbacks the checkpoint stores none of raises
    // KeyError at the first save. Only they can be missing: the trigger callback and
    // TrainerControl are configured in every incarnation, under one class name each, so every
    // checkpoint the job writes stores them.
    bool lacks_early_stopping = false;
};

// Both false when the file is missing or unreadable, or stateful_callbacks is not an object.
StoredCallbacks stored_stateful_callbacks(const SimFileSystem& fs, std::int64_t resume_step) {
    const auto bytes =
        fs.shared_content_in(FsView::visible, join_path(checkpoint_path(resume_step), kTrainerStateName));
    const auto texts = bytes ? read_top_level_texts(*bytes, {"stateful_callbacks"}) : std::nullopt;
    if (!texts || !texts->contains("stateful_callbacks")) {
        return {};
    }
    const auto members = top_level_members(texts->at("stateful_callbacks"));
    if (!members) {
        return {};
    }
    // As a parsed object holds them: the last of a repeated name wins.
    std::map<std::string_view, bool, std::less<>> is_list;
    for (const auto& member : *members) {
        is_list[member.name] = member.value.front() == '[';
    }
    return {std::any_of(is_list.begin(), is_list.end(), [](const auto& entry) { return entry.second; }),
            !is_list.contains("EarlyStoppingCallback")};
}

}  // namespace

std::string_view due_refusal(const TrainerOptions& trainer, bool several_of_one_class,
                             bool checkpoint_lacks_a_class) {
    if (trainer.save_strategy == SaveStrategy::best) {
        return "save_strategy";
    }
    const bool tracks_best = !trainer.tracked_metric().empty();
    const bool callbacks_best =
        trainer.tracked_metric() == kCallbackMetric && trainer.tracked_greater_is_better();
    if (tracks_best && !callbacks_best && trainer.save_total_limit >= 1) {
        return "metric_for_best_model";
    }
    if (tracks_best && trainer.save_total_limit == 1) {
        return "save_total_limit";
    }
    // Finding 24: the trainer's own evaluations can leave best_model_checkpoint on an older
    // checkpoint; rotation under a limit of 2 then keeps it and the newest, not the linked best.
    if (tracks_best && trainer.eval_strategy != EvalStrategy::no && trainer.save_total_limit == 2) {
        return "save_total_limit";
    }
    if (trainer.restore_callback_states_from_checkpoint &&
        trainer.stateful_callbacks_refresh == StatefulCallbacksRefresh::append && several_of_one_class) {
        return "restore_callback_states_from_checkpoint";
    }
    if (trainer.stateful_callbacks_refresh == StatefulCallbacksRefresh::append && checkpoint_lacks_a_class) {
        return "EarlyStoppingCallback";
    }
    return "";
}

std::optional<std::string_view> leading_setting(std::string_view error) {
    for (const std::string_view phrase : {"cannot run with ", "cannot resume with "}) {
        if (const auto at = error.find(phrase); at != std::string_view::npos) {
            const auto rest = error.substr(at + phrase.size());
            return rest.substr(0, rest.find_first_of("= "));
        }
    }
    return std::nullopt;
}

void RefusalChecker::on(const IncarnationBegan& e) {
    const auto& trainer = context_.scenario.trainer;
    const bool appends = trainer.stateful_callbacks_refresh == StatefulCallbacksRefresh::append;
    const bool appended_restore = appends && trainer.restore_callback_states_from_checkpoint;
    if (!e.resume_step) {
        // A fresh start stores the live callbacks: several early-stopping callbacks are one list.
        due_ = due_refusal(trainer,
                           appended_restore && context_.scenario.callbacks.early_stopping_callbacks >= 2);
        return;
    }
    // The resume's trainer_state.json is parsed once, and only when a rule that reads it could be due.
    const bool early_stopping_configured =
        !configured_callbacks(context_.scenario.callbacks, true).early_stopping.empty();
    if (!appended_restore && !(appends && early_stopping_configured)) {
        due_ = due_refusal(trainer, false);
        return;
    }
    const auto stored = stored_stateful_callbacks(context_.fs, *e.resume_step);
    due_ = due_refusal(trainer, appended_restore && stored.several_of_one_class,
                       appends && early_stopping_configured && stored.lacks_early_stopping);
}

// A message of the seed's form must lead with the setting: the later text names others (the
// limit's refusal also names metric_for_best_model), so a name found anywhere proves nothing.
// A message of another form (a user's own callback) must name it somewhere.
void RefusalChecker::on(const TrainingRefused& e) {
    if (due_.empty()) {
        context_.violate(Property::P14,
                         "on_train_begin refused training arguments no rule refuses: " + e.error);
    } else if (const auto leading = leading_setting(e.error);
               leading ? *leading != due_ : e.error.find(due_) == std::string::npos) {
        context_.violate(Property::P14, "on_train_begin refused without naming " + std::string(due_) +
                                            ", the setting that makes the refusal due: " + e.error);
    }
    due_ = "";
}

void RefusalChecker::on(const TrainBegan&) {
    if (!due_.empty()) {
        context_.violate(Property::P14,
                         "on_train_begin accepted training arguments the rules refuse: " + std::string(due_) +
                             " (" +
                             std::string(kSaveStrategyNames.name(context_.scenario.trainer.save_strategy)) +
                             " saves, save_total_limit " +
                             std::to_string(context_.scenario.trainer.save_total_limit) + ")");
        due_ = "";
    }
}

}  // namespace ckpt::sim
