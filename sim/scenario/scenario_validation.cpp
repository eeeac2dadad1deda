// Scenario::validate: the cross-field rules a scenario must meet before it runs (a fault's rank
// below ranks, state keys only on the port's early-stopping callback, ...), each error naming its
// field as a scenario file spells it.
#include <string>

#include "sim/ranks/rank_limit.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_field_reader.hpp"

namespace ckpt::sim {

using scenario_json::bad_field;

void Scenario::validate() const {
    if (job.ranks < 1 || job.ranks > kMaxRanks) {
        bad_field("ranks", "must be between 1 and " + std::to_string(kMaxRanks));
    }
    if (job.nodes < 1 || job.ranks % job.nodes != 0) {
        bad_field("nodes", "must divide ranks (" + std::to_string(job.ranks) + ") into nodes of equal size");
    }
    if (trainer.max_steps < 1 || trainer.max_steps > kMaxScenarioSteps) {
        bad_field("max_steps", "must be between 1 and " + std::to_string(kMaxScenarioSteps));
    }
    if (trainer.steps_per_epoch < 1) {
        bad_field("steps_per_epoch", "must be positive");
    }
    if (trainer.save_steps < 1) {
        bad_field("save_steps", "must be positive");
    }
    for (const auto step : callbacks.gate_steps) {
        if (step < 1) {
            bad_field("gate_steps", "must contain positive integers");
        }
    }
    if (callbacks.regular_steps && *callbacks.regular_steps < 1) {
        bad_field("regular_steps", "must be positive");
    }
    try {
        callbacks.policy.validate();
        if (callbacks.resume_change.policy) {
            callbacks.resume_change.policy->validate();
        }
    } catch (const ckpt::ValueError& error) {
        bad_field("policy", error.what());
    }
    if (trainer.save_total_limit < 1) {
        bad_field("save_total_limit", "must be positive");
    }
    if (callbacks.early_stopping_callbacks < 0 || callbacks.early_stopping_callbacks > 4) {
        bad_field("early_stopping_callbacks", "must be between 0 and 4");
    }
    if (callbacks.early_stopping_state_keys &&
        (callbacks.early_stopping_callback != EarlyStoppingCallbackKind::port ||
         callbacks.resume_change.early_stopping_callback.value_or(EarlyStoppingCallbackKind::port) !=
             EarlyStoppingCallbackKind::port)) {
        bad_field("early_stopping_state_keys",
                  "needs early_stopping_callback \"port\" (Transformers' has no "
                  "state_key)");
    }
    if (callbacks.early_stopping_mixed_keys && !callbacks.early_stopping_state_keys) {
        bad_field("early_stopping_mixed_keys", "needs early_stopping_state_keys");
    }
    if (callbacks.early_stopping_patience < 1 || callbacks.early_stopping_patience > 1000000) {
        bad_field("early_stopping_patience", "must be between 1 and 1000000");
    }
    if (score.kind == ScoreKind::scripted && score.script.empty()) {
        bad_field("score.script", "must hold at least one score for the scripted model");
    }
    for (std::size_t i = 0; i < faults.size(); ++i) {
        const auto& fault = faults[i];
        if (fault.rank >= job.ranks) {
            bad_field("faults[" + std::to_string(i) + "].rank",
                      "must name a rank below ranks (" + std::to_string(job.ranks) + ")");
        }
    }
}

}  // namespace ckpt::sim
