// The rules behind assess_training_args: each finding restates a row of issue 11's audit with the
// ckptsim result for it (docs/transformers.md,
// "Using the original's callback with Transformers safely").
#include "policy/inspect/training_args_risks.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "policy/base/errors.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 11> kKnownFields{"restore_callback_states_from_checkpoint",
                                                        "save_strategy",
                                                        "save_total_limit",
                                                        "metric_for_best_model",
                                                        "greater_is_better",
                                                        "load_best_model_at_end",
                                                        "resume_from_checkpoint",
                                                        "world_size",
                                                        "save_on_each_node",
                                                        "eval_strategy",
                                                        "callbacks"};

[[noreturn]] void wrong_type(std::string_view field, std::string_view expected) {
    throw ValueError("training args field '" + std::string(field) + "' must be " + std::string(expected));
}

bool boolean(const json& args, const char* field, bool fallback) {
    const auto found = args.find(field);
    if (found == args.end() || found->is_null()) {
        return fallback;
    }
    if (!found->is_boolean()) {
        wrong_type(field, "true or false");
    }
    return found->get<bool>();
}

std::optional<bool> boolean_if_present(const json& args, const char* field) {
    const auto found = args.find(field);
    if (found == args.end() || found->is_null()) {
        return std::nullopt;
    }
    return boolean(args, field, false);
}

std::optional<std::string> text(const json& args, const char* field) {
    const auto found = args.find(field);
    if (found == args.end() || found->is_null()) {
        return std::nullopt;
    }
    if (!found->is_string()) {
        wrong_type(field, "a string or null");
    }
    return found->get<std::string>();
}

std::optional<std::int64_t> integer(const json& args, const char* field) {
    const auto found = args.find(field);
    if (found == args.end() || found->is_null()) {
        return std::nullopt;
    }
    if (!found->is_number_integer()) {
        wrong_type(field, "an integer or null");
    }
    return found->get<std::int64_t>();
}

// The `callbacks` convenience field: the class names passed to Trainer(callbacks=...).
std::optional<std::string> class_passed_twice(const json& args) {
    const auto found = args.find("callbacks");
    if (found == args.end() || found->is_null()) {
        return std::nullopt;
    }
    if (!found->is_array() ||
        !std::all_of(found->begin(), found->end(), [](const json& name) { return name.is_string(); })) {
        wrong_type("callbacks", "a list of callback class names");
    }
    std::vector<std::string> names;
    for (const auto& name : *found) {
        names.push_back(name.get<std::string>());
    }
    std::sort(names.begin(), names.end());
    const auto twice = std::adjacent_find(names.begin(), names.end());
    return twice == names.end() ? std::nullopt : std::optional(*twice);
}

void add_callback_list_findings(const json& args, bool restore, TrainingArgsReport& report) {
    const auto twice = class_passed_twice(args);
    if (restore && twice) {
        report.findings.push_back(
            {"restore_callback_states_from_checkpoint=True with several " + *twice + " callbacks", "P10",
             false,
             "every save appends their states to stateful_callbacks (PR #33875) and a resume restores the "
             "first ones, from train start; the callback refuses this at on_train_begin"});
    } else if (twice) {
        report.findings.push_back({"several " + *twice + " callbacks", "", true,
                                   "their appended states are never restored with "
                                   "restore_callback_states_from_checkpoint=False"});
    }
    if (restore) {
        report.findings.push_back({"restored callbacks are re-added at the end of the callback list", "",
                                   true, "the callback's hooks read no other callback's flags"});
    }
}

void add_resume_findings(const json& args, TrainingArgsReport& report) {
    const bool restore = boolean(args, "restore_callback_states_from_checkpoint", false);
    report.findings.push_back(
        restore ? TrainingArgsFinding{"restore_callback_states_from_checkpoint=True", "", true,
                                      "the Trainer restores the callback from the resume checkpoint"}
                : TrainingArgsFinding{"restore_callback_states_from_checkpoint=False (default)", "", true,
                                      "the Trainer restores no callback state; the callback takes its own "
                                      "from checkpoint-N's trainer_state.json at on_train_begin"});
    add_callback_list_findings(args, restore, report);
    const auto resume = args.find("resume_from_checkpoint");
    if (resume != args.end() && !resume->is_null() && !resume->is_boolean() && !resume->is_string()) {
        wrong_type("resume_from_checkpoint", "true, false, a path or null");
    }
    if (resume != args.end() && resume->is_boolean() && resume->get<bool>()) {
        report.findings.push_back({"resume_from_checkpoint=True", "P12", false,
                                   "a restart before the first checkpoint raises ValueError(\"No valid "
                                   "checkpoint found in output directory\"); pass get_last_checkpoint()'s "
                                   "result instead"});
    }
}

// Transformers' own best (issue 11 row 7), modelled by the simulated trainer: what the callback
// refuses at on_train_begin, and what it survives.
void add_best_model_findings(const std::string& strategy, std::optional<std::int64_t> limit, bool tracks_best,
                             const std::optional<std::string>& metric, std::optional<bool> greater,
                             bool trainer_evaluates, TrainingArgsReport& report) {
    if (strategy == "best") {
        report.findings.push_back({"save_strategy=best", "P1, P4", false,
                                   "refused at on_train_begin: Transformers saves only on its own new best "
                                   "metric, never on the callback's save events"});
    }
    if (!tracks_best) {
        return;
    }
    if (limit && *limit == 1) {
        report.findings.push_back(
            {"save_total_limit=1 with metric_for_best_model / load_best_model_at_end", "P1, P4", false,
             "refused at on_train_begin: the end of training deletes every checkpoint but Transformers' "
             "best_model_checkpoint, which can be another than final_checkpoint's target"});
        return;
    }
    if (limit && *limit == 2 && trainer_evaluates) {
        report.findings.push_back(
            {"save_total_limit=2 with eval_strategy steps/epoch and metric_for_best_model", "P4", false,
             "refused at on_train_begin: an evaluation of the trainer's own can leave best_model_checkpoint "
             "on an older checkpoint, which rotation keeps beside the newest, deleting final_checkpoint's "
             "target before the new best is committed (finding 24); set save_total_limit >= 3"});
        return;
    }
    const bool lower_is_better = !greater.value_or(!metric.value_or("loss").ends_with("loss"));
    report.findings.push_back(
        lower_is_better
            ? TrainingArgsFinding{"metric_for_best_model / load_best_model_at_end, lower is better", "P1",
                                  false,
                                  "refused at on_train_begin: rotation keeps Transformers' best beside the "
                                  "newest and can delete final_checkpoint's target (swarm seed 10193)"}
            : TrainingArgsFinding{"metric_for_best_model / load_best_model_at_end", "", true,
                                  "safe when metric_for_best_model is the callback's score metric (otherwise "
                                  "refused at on_train_begin): rotation also keeps Transformers' "
                                  "best_model_checkpoint and the end of training deletes nothing"});
}

void add_save_findings(const json& args, TrainingArgsReport& report) {
    const auto strategy = text(args, "save_strategy").value_or("steps");
    if (strategy != "steps" && strategy != "epoch" && strategy != "best" && strategy != "no") {
        wrong_type("save_strategy", "one of no, steps, epoch, best");
    }
    const auto limit = integer(args, "save_total_limit");
    const auto metric = text(args, "metric_for_best_model");
    const bool load_best = boolean(args, "load_best_model_at_end", false);
    if (boolean(args, "save_on_each_node", false)) {
        report.findings.push_back({"save_on_each_node=True on nodes sharing output_dir", "", true,
                                   "every node's local rank 0 writes the same checkpoint and rotates; the "
                                   "callback links only after every rank's write, and the limits above keep "
                                   "final_checkpoint's target through any node's rotation"});
    }
    const auto eval_strategy = text(args, "eval_strategy").value_or("no");
    if (eval_strategy != "no" && eval_strategy != "steps" && eval_strategy != "epoch") {
        wrong_type("eval_strategy", "one of no, steps, epoch");
    }
    integer(args, "world_size");
    report.findings.push_back({"checkpoints are never fsynced (Transformers)", "", true,
                               "the callback fsyncs the checkpoint's files and directory before "
                               "final_checkpoint names it"});
    report.findings.push_back({"rotation by mtime (use_mtime=True), by step under a 1 s span", "", true,
                               "every checkpoint the callback links is the newest by mtime and by step "
                               "when it is linked"});
    report.findings.push_back({"should_training_stop tested after the step (Transformers' loop)", "", true,
                               "a resumed job takes one optimizer step after a durable stop, with no "
                               "evaluation and no save"});
    add_best_model_findings(strategy, limit, metric.has_value() || load_best, metric,
                            boolean_if_present(args, "greater_is_better"), eval_strategy != "no", report);
}

}  // namespace

TrainingArgsReport assess_training_args(const json& args) {
    if (!args.is_object()) {
        throw ValueError("training args must be a JSON object of TrainingArguments fields");
    }
    TrainingArgsReport report;
    for (const auto& [key, value] : args.items()) {
        if (std::find(kKnownFields.begin(), kKnownFields.end(), key) == kKnownFields.end()) {
            report.unknown_keys.push_back(key);
        }
    }
    add_resume_findings(args, report);
    add_save_findings(args, report);
    return report;
}

}  // namespace ckpt
