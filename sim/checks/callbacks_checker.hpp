// P10: every stateful callback restores to its state at the checkpoint, and a resume under a
// changed configuration (the scenario's resume change) refuses loudly when it must. The
// early-stopping counters are recomputed here from the scores the simulator fed every evaluation
// (the callback's and the trainer's own) on the current branch of history (REFERENCE.md's
// rule), never read from their own export, and compared with
// every export written into a checkpoint and with what a resume restored: the port's callback
// against its own best, Transformers' own against TrainerState.best_metric, restated here. An
// early-stopping callback must stop training exactly when a replayed counter reaches its patience. Every
// export written into a checkpoint must also be, whole, the checker's own restatement of Transformers' layout
// (exportable_state_layout.hpp), the trigger's policy state the ledger's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/checks/checker_context.hpp"
#include "sim/checks/exportable_state_layout.hpp"
#include "sim/checks/first_reports.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class CallbacksChecker {
  public:
    explicit CallbacksChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const MetricsEvaluated& e);
    void on(const TrainerStateWritten& e);
    void on(const CallbacksRestored& e);
    void on(const TrainBegan& e);
    void on(const ResumeRefused& e);
    void on(const EarlyStoppingRequested& e) noexcept;
    void on(const auto&) noexcept {}

  private:
    // One EarlyStoppingCallback as the rule says it must be: its counter and best metric.
    struct EarlyStoppingModel {
        std::int64_t counter = 0;
        std::optional<double> best;
    };
    // The EarlyStoppingCallback states trainer_state.json holds, in order, and whether as a list:
    // the appending refresh keeps a removed class's states and grows a list at every save.
    struct HeldStates {
        std::vector<int> ids;
        std::vector<EarlyStoppingModel> models;
        bool list = false;
    };
    // What an incarnation runs, and its early-stopping callbacks' modelled state.
    struct Configuration {
        PolicySettings policy;
        std::vector<int> ids;  // early-stopping identities, in callback-list (export) order
        std::vector<EarlyStoppingModel> models;
        HeldStates held;  // what its next trainer_state.json will hold
        EarlyStoppingCallbackKind kind = EarlyStoppingCallbackKind::port;  // whose early-stopping class
    };
    // Whether the resume from `saved` to `now` must refuse, and the names it must give.
    std::vector<std::string> due_refusal(const Configuration& saved, const Configuration& now) const;
    // The restored models in configuration order; `restored` marks the callbacks given a state.
    std::vector<EarlyStoppingModel> restored_models(const HeldStates& held, const std::vector<int>& ids,
                                                    std::vector<bool>& restored) const;
    bool same_callbacks(const std::vector<int>& written, const std::vector<int>& ids) const;
    std::vector<std::optional<std::size_t>> restore_matches(const std::vector<int>& held,
                                                            const std::vector<int>& ids) const;
    void move_restored_to_end(const std::vector<bool>& restored);
    void adopt_trainer_best(const std::vector<bool>& restored);
    HeldStates after_save() const;
    ExpectedStatefulCallbacks expected_export() const;
    bool restored_as_held(const nlohmann::json& restored, const nlohmann::json& held) const;
    bool stock_early_stopping() const noexcept;
    void replay_transformers_rule(double score);
    void judge_early_stop(std::int64_t step);
    void replay_port_rule(double score);
    std::optional<std::string> counters_finding(const nlohmann::json& states,
                                                const std::vector<EarlyStoppingModel>& expected,
                                                const std::string& where) const;

    const CheckerContext& context_;
    Configuration running_;                 // the running incarnation
    bool configuration_unchanged_ = true;   // the running one resumed under its checkpoint's
    std::vector<std::string> due_refusal_;  // names the running incarnation's refusal must give
    // The running incarnation's restore leaves a held early-stopping state or a configured callback
    // unmatched, which the port's restore must warn of.
    bool restore_leaves_unmatched_ = false;
    std::map<std::int64_t, Configuration> saved_;  // as of each checkpoint write the ledger holds
    std::uint64_t retirements_seen_ = 0;           // Ledger::retirements when saved_ was last pruned
    std::vector<std::string> restore_findings_;    // the last restore's, judged if it trains on
    // The write whose export was last judged: the checkpoint and its writer's rank.
    std::optional<std::pair<std::int64_t, int>> layout_judged_write_;
    FirstReports evaluations_;  // every rank reports each evaluation; the first report counts
    // TrainerState.best_metric as the checker restates it (_determine_best_metric on the tracked
    // metric, the resumed checkpoint's trainer_state.json on the disk): what Transformers' own
    // EarlyStoppingCallback compares each metric with.
    std::optional<double> trainer_best_metric_;
    // Whether training's stop was already set when an evaluation began (max_steps, an earlier
    // decision's stop in the ledger, an earlier early stop), so no early-stopping callback could
    // set it anew; and whether rank 0's did at the evaluation being judged.
    bool stop_in_force_ = true;
    bool early_stop_requested_ = false;
};

}  // namespace ckpt::sim
