// P10: every stateful callback restores to its state at the checkpoint, and a resume under a
// changed configuration (the scenario's resume change) refuses loudly when it must. The
// early-stopping counters are recomputed here from the scores the ledger saw on the current
// branch of history (REFERENCE.md's rule), never read from their own export, and compared with
// every export written into a checkpoint and with what a resume restored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class CallbacksChecker {
  public:
    explicit CallbacksChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const DecisionMade& e);
    void on(const TrainerStateWritten& e);
    void on(const CallbacksRestored& e);
    void on(const TrainBegan& e);
    void on(const ResumeRefused& e);
    void on(const auto&) noexcept {}

  private:
    // One EarlyStoppingCallback as the rule says it must be: its counter and best metric.
    struct EarlyStoppingModel {
        std::int64_t counter = 0;
        std::optional<double> best;
    };
    // What an incarnation configured, and its early-stopping callbacks' modelled state.
    struct Configuration {
        PolicySettings policy;
        std::vector<int> ids;  // early-stopping identities, in configuration order
        std::vector<EarlyStoppingModel> models;
    };
    // Whether the resume from `saved` to `now` must refuse, and the names it must give.
    std::vector<std::string> due_refusal(const Configuration& saved, const Configuration& now) const;
    std::vector<EarlyStoppingModel> restored_models(const Configuration& saved,
                                                    const std::vector<int>& ids) const;
    void check_counters(const nlohmann::json& states, const std::vector<EarlyStoppingModel>& expected,
                        const std::string& where);

    const CheckerContext& context_;
    Configuration running_;                        // the running incarnation
    bool configuration_unchanged_ = true;          // the running one resumed under its checkpoint's
    std::vector<std::string> due_refusal_;         // names the running incarnation's refusal must give
    std::map<std::int64_t, Configuration> saved_;  // as of each checkpoint write
};

}  // namespace ckpt::sim
