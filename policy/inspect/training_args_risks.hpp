// `ckptsim inspect --training-args FILE`: which of Transformers' behaviours that ckptsim models
// (issue 11) a run's TrainingArguments put in force, and which properties each puts at risk for
// the seed's callback as this port fixes it. Reads only the JSON given; throws ValueError naming
// the first field of the wrong type. Depends on nlohmann::json and policy/base.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt {

struct TrainingArgsFinding {
    std::string setting;     // "restore_callback_states_from_checkpoint=False"
    std::string properties;  // "P2, P1" or "" when the port makes it safe
    bool safe = true;        // proven safe for this port of the callback (with the fix named)
    std::string detail;      // what Transformers does, and what covers it
};

struct TrainingArgsReport {
    std::vector<std::string> unknown_keys;  // reported, never an error
    std::vector<TrainingArgsFinding> findings;
};

// `args` is a JSON object of TrainingArguments fields (absent fields take Transformers'
// defaults); `resume_from_checkpoint` is the train() argument, accepted here for convenience.
TrainingArgsReport assess_training_args(const nlohmann::json& args);

}  // namespace ckpt
