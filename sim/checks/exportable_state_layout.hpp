// P10's own statement of what TrainerState.stateful_callbacks must hold for the callbacks the
// simulated trainer runs, restated from Transformers' ExportableState layout (never from the
// port's export code): each class under its name, {"args": ..., "attributes": ...} for one
// callback and a list of them, in callback-list order, for several; Lightning's "state_key" beside
// them for a keyed callback. The checker fills it from its own models and the ledger.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"

namespace ckpt::sim {

struct ExpectedEarlyStopping {
    int patience = 1;
    double threshold = 0.0;
    bool keyed = false;
    std::int64_t counter = 0;
    std::optional<double> best;
    bool transformers = false;  // Transformers' own: the counter is its only attribute
};

struct ExpectedStatefulCallbacks {
    PolicySettings policy;                 // the trigger's settings in force
    std::vector<std::int64_t> gate_steps;  // as configured (the callback sorts them)
    std::optional<std::int64_t> regular_steps;
    std::int64_t save_total_limit = 1;
    std::optional<CheckpointEvaluationState> policy_state;  // the ledger's, when it knows it
    std::vector<ExpectedEarlyStopping> early_stopping;      // in callback-list order
};

// Lightning's _generate_state_key shape: "EarlyStoppingCallback{'early_stopping_patience': 3,
// 'early_stopping_threshold': 0.001}", the threshold in Python's repr.
std::string expected_state_key(int patience, double threshold);

// The first way `live` (an export of every callback and TrainerControl) departs from the layout,
// or nothing.
std::optional<std::string> stateful_callbacks_finding(const nlohmann::json& live,
                                                      const ExpectedStatefulCallbacks& expected);

}  // namespace ckpt::sim
