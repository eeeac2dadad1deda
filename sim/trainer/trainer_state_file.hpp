// trainer_state.json as Transformers writes and reads it: TrainerState.save_to_json's text
// (json.dumps(asdict(state), indent=2, sort_keys=True) + "\n", ASCII-escaped) and
// TrainerState.load_from_json's parse. No ckptsim marker and no migration: a real Trainer adds
// neither. Depends on nlohmann::json and the port's FileBytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policy/ports/file_bytes.hpp"

namespace ckpt::sim::transformers {

// The bytes save_to_json writes for `state` (nlohmann's objects keep their keys sorted).
std::string trainer_state_text(const nlohmann::json& state);

// json.loads of a trainer_state.json; throws nlohmann::json::parse_error on a torn or empty text.
nlohmann::json load_trainer_state(std::string_view text);

// TrainerState.load_from_json of a file as the disk holds it. A file still holding the runs
// LogHistory::document wrote (the text before the list's entries, the entries, the text after)
// is parsed without the entries, whose text is kept as written: save_to_json of the parsed list
// would give back those very bytes. Any other text is parsed whole.
struct LoadedTrainerState {
    nlohmann::json state;  // "log_history" is absent when log_history_text is set
    std::optional<FileBytes::Run> log_history_text;
};
LoadedTrainerState load_trainer_state(const FileBytes& bytes);

}  // namespace ckpt::sim::transformers
