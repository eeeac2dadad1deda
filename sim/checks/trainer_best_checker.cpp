// The restatement of _determine_best_metric and _save_checkpoint's best-checkpoint update
// (transformers_facts.md §2), written from the facts, not from the simulated trainer.
#include "sim/checks/trainer_best_checker.hpp"

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/top_level_fields.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

template <typename T>
json or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

// The three members Transformers' best tracking writes; the rest of the (large) file is
// validated but not kept.
std::optional<std::map<std::string, json, std::less<>>> read_best_fields(const FileBytes& text) {
    return read_top_level_fields(text, {"best_metric", "best_global_step", "best_model_checkpoint"});
}

// v4.5x records best_global_step (and names best_model_checkpoint from it) only under "steps" and
// "epoch"; v5, with PR #44583, under "best" too. Restated here, apart from the trainer.
bool records_best_step(const TrainerOptions& trainer) {
    return trainer.save_strategy != SaveStrategy::best ||
           trainer.transformers_release == TransformersRelease::v5;
}

}  // namespace

void TrainerBestChecker::on(const IncarnationBegan& e) {
    best_ = {};
    checked_write_.reset();
    evaluations_.reset();
    if (!e.resume_step) {
        return;
    }
    // TrainerState.load_from_json: the resumed run's best is whatever that file says.
    const auto text = context_.fs.shared_content_in(FsView::visible, trainer_state_path(*e.resume_step));
    if (!text) {
        return;
    }
    // Most resumes load a checkpoint exactly as it was written and judged: the same bytes give
    // the same fields, without validating the large file a second time.
    const auto judged = judged_.find(*e.resume_step);
    const auto state = judged != judged_.end() && judged->second.bytes.equals(*text)
                           ? judged->second.fields
                           : read_best_fields(*text);
    if (!state) {
        return;
    }
    const auto read = [&](const char* key) {
        const auto found = state->find(key);
        return found != state->end() ? found->second : json();
    };
    if (const auto metric = read("best_metric"); metric.is_number()) {
        best_.metric = metric.get<double>();
    }
    if (const auto step = read("best_global_step"); step.is_number_integer()) {
        best_.global_step = step.get<std::int64_t>();
    }
    if (const auto path = read("best_model_checkpoint"); path.is_string()) {
        best_.model_checkpoint = path.get<std::string>();
    }
}

void TrainerBestChecker::on(const MetricsEvaluated& e) noexcept {
    if (!evaluations_.first(e.rank)) {
        return;
    }
    const auto& trainer = context_.scenario.trainer;
    // TrainingArguments' post-init: load_best_model_at_end without a metric tracks "loss", and
    // greater_is_better defaults to "the metric does not end with loss".
    std::string metric = trainer.metric_for_best_model;
    if (metric.empty() && trainer.load_best_model_at_end) {
        metric = "loss";
    }
    if (metric.empty()) {
        return;
    }
    const bool is_loss = metric.size() >= 4 && metric.compare(metric.size() - 4, 4, "loss") == 0;
    const bool greater = trainer.greater_is_better.value_or(!is_loss);
    const double value = metric == "loss" ? -e.score : e.score;  // the model reports loss = -score
    if (!best_.metric || (greater ? value > *best_.metric : value < *best_.metric)) {
        best_.metric = value;
        if (records_best_step(trainer)) {
            best_.global_step = e.step;
        }
    }
}

void TrainerBestChecker::on(const TrainerStateWritten& e) {
    if (checked_write_ == std::make_pair(e.step, e.rank)) {
        return;
    }
    checked_write_ = std::make_pair(e.step, e.rank);
    // _save_checkpoint names the best checkpoint once the model is written, if it exists.
    if (records_best_step(context_.scenario.trainer) && best_.global_step) {
        const auto path = checkpoint_path(*best_.global_step);
        if (context_.fs.exists_in(FsView::visible, path)) {
            best_.model_checkpoint = path;
        }
    }
    const auto state = read_best_fields(e.bytes);
    remember(e.step, e.bytes, state);
    if (!state) {
        context_.violate(Property::P1, "trainer_state.json of checkpoint-" + std::to_string(e.step) +
                                           " is not a JSON object");
        return;
    }
    const auto written = [&](const char* key) {
        const auto found = state->find(key);
        return found != state->end() ? found->second : json("missing");
    };
    compare(e.step, "best_metric", written("best_metric"), or_null(best_.metric));
    compare(e.step, "best_global_step", written("best_global_step"), or_null(best_.global_step));
    compare(e.step, "best_model_checkpoint", written("best_model_checkpoint"),
            or_null(best_.model_checkpoint));
}

void TrainerBestChecker::remember(std::int64_t step, const FileBytes& bytes, const BestFields& fields) {
    if (retirements_seen_ != context_.ledger.retirements) {
        retirements_seen_ = context_.ledger.retirements;
        std::erase_if(judged_,
                      [&](const auto& entry) { return !context_.ledger.checkpoints.contains(entry.first); });
    }
    auto& judged = judged_[step];
    judged.bytes = bytes;
    judged.fields = fields;
}

void TrainerBestChecker::compare(std::int64_t step, const char* field, const json& written,
                                 const json& expected) const {
    if (written != expected) {
        context_.violate(Property::P1, "trainer_state.json of checkpoint-" + std::to_string(step) + " has " +
                                           field + " " + written.dump() +
                                           " but Transformers' tracking gives " + expected.dump());
    }
}

}  // namespace ckpt::sim
