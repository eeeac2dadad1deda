// trainer_state.json as Transformers writes and reads it: TrainerState.save_to_json's text
// (json.dumps(asdict(state), indent=2, sort_keys=True) + "\n", ASCII-escaped) and
// TrainerState.load_from_json's parse. No ckptsim marker and no migration: a real Trainer adds
// neither. Depends on nlohmann::json only.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt::sim::transformers {

// The bytes save_to_json writes for `state` (nlohmann's objects keep their keys sorted).
std::string trainer_state_text(const nlohmann::json& state);

// json.loads of a trainer_state.json; throws nlohmann::json::parse_error on a torn or empty text.
nlohmann::json load_trainer_state(std::string_view text);

}  // namespace ckpt::sim::transformers
