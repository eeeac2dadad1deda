// Transformers' EarlyStoppingCallback as an ExportableState, so its patience counter and best
// metric survive a resume. Its verdict depends only on its own state (never on TrainerState),
// and its state() is loadable by a real Trainer. Bad arguments are ValueErrors. Depends on
// callbacks/, base/ and python/ only.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"
#include "policy/callbacks/trainer_control.hpp"

namespace ckpt {

// Transformers' EarlyStoppingCallback, made exportable so its patience counter survives a
// resume (before stateful callbacks it restarted at 0 every time, issue #28544).
//
// state() = {"args": {"early_stopping_patience", "early_stopping_threshold"},
//            "attributes": {"early_stopping_patience_counter", "best_metric"}}
// (export_stateful_callbacks adds "state_key" beside them when the callback has one).
//
// Transformers compares against TrainerState.best_metric, which the trainer owns. We keep the
// best metric in our own attributes instead, so the callback is self-contained: its state
// alone decides the next verdict, and a restore cannot pair a counter with another run's best.
// A state Transformers' own callback saved has no best: the trainer's is adopted at train begin.
// Transformers restores attributes with setattr, so the extra "best_metric" attribute is
// harmless to a real Trainer reading our trainer_state.json.
class EarlyStoppingCallback final : public ExportableState {
  public:
    static constexpr const char* kClassName = "EarlyStoppingCallback";

    // Throws ValueError unless patience > 0 and threshold is finite and >= 0. Transformers'
    // defaults are patience 1, threshold 0.0.
    explicit EarlyStoppingCallback(int early_stopping_patience = 1, double early_stopping_threshold = 0.0,
                                   std::optional<std::string> state_key = std::nullopt);

    // A callback whose state_key is generated from its args, Lightning style, so several
    // early-stopping callbacks with different settings restore by identity, not position.
    static EarlyStoppingCallback with_generated_state_key(int early_stopping_patience,
                                                          double early_stopping_threshold = 0.0);
    // "EarlyStoppingCallback{'early_stopping_patience': 3, 'early_stopping_threshold': 0.0}",
    // the shape of Lightning's _generate_state_key (class name + repr of the kwargs).
    static std::string generated_state_key(int early_stopping_patience, double early_stopping_threshold);

    // Transformers' restore: construct from the saved args (so they override the current
    // configuration), then apply the saved attributes. A saved "state_key" is kept. A state in
    // Transformers' own layout (a counter and no "best_metric": its callback compares with
    // TrainerState.best_metric) leaves the best unknown until adopt_trainer_best_metric.
    static EarlyStoppingCallback from_state(const nlohmann::json& state);

    // on_train_begin's part: a callback restored from Transformers' own layout takes
    // TrainerState.best_metric (in this callback's metric, greater is better; the trainer loaded
    // it from the same checkpoint) as the best its restored counter was counted against. Without
    // it, the first evaluation would find nothing to beat and reset the counter (finding 23).
    // Anything else is left as it is.
    void adopt_trainer_best_metric(std::optional<double> trainer_best_metric);

    std::string class_name() const override { return kClassName; }
    std::optional<std::string> state_key() const override { return state_key_; }
    nlohmann::json state() const override;

    // Called with each evaluation's metric. An improvement is strictly better than the best so
    // far by more than the threshold, and resets the counter; anything else counts against
    // patience. Like Transformers' _determine_best_metric, any strict improvement becomes the
    // new best, even one too small to reset the counter. A non-finite metric never improves
    // and is never stored (JSON cannot hold it). Sets control.should_training_stop once the
    // counter reaches patience, and returns whether it did.
    bool on_evaluate(double metric, bool greater_is_better, TrainerControl& control);

    int early_stopping_patience() const noexcept { return patience_; }
    double early_stopping_threshold() const noexcept { return threshold_; }
    int early_stopping_patience_counter() const noexcept { return patience_counter_; }
    std::optional<double> best_metric() const noexcept { return best_metric_; }

  private:
    void restore_attributes(const nlohmann::json& attributes);
    void count_against_patience() noexcept;

    int patience_;
    double threshold_;
    std::optional<std::string> state_key_;
    int patience_counter_ = 0;
    std::optional<double> best_metric_;
    bool best_unknown_ = false;  // restored from Transformers' own layout, not yet adopted
};

}  // namespace ckpt
