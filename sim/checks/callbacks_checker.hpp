// P10: every stateful callback restores to its state at the checkpoint, without warnings. The
// early-stopping callbacks' patience counters are recomputed here from the scores the ledger saw
// handed out on the current branch of history (REFERENCE.md's rule), never read from their own
// export, and compared with what was restored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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
    void on(const auto&) noexcept {}

  private:
    // One EarlyStoppingCallback as the rule says it must be: its counter and best metric.
    struct EarlyStoppingModel {
        std::int64_t counter = 0;
        std::optional<double> best;
    };
    std::vector<EarlyStoppingModel> fresh_models() const;
    void check_early_stopping(std::int64_t step, const nlohmann::json& restored);

    const CheckerContext& context_;
    std::vector<EarlyStoppingModel> models_;                         // the running incarnation
    std::map<std::int64_t, std::vector<EarlyStoppingModel>> saved_;  // as of each checkpoint write
};

}  // namespace ckpt::sim
