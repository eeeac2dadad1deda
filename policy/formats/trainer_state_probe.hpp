// A tree-free check of a trainer_state.json's top-level global_step, the test behind "checkpoint
// complete", and the same validation locating the trigger callback's saved state. Never throws:
// anything but a valid document (as nlohmann::json::parse judges validity, with the NaN,
// Infinity and -Infinity values Python's json.dumps writes for a float that is not finite, which
// Transformers' trainer_state.json holds when it logged one) with an integer global_step is "no
// step". Depends on the port's FileBytes (and, in its source, on the trigger
// callback's class name from saved_trigger_callback.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policy/ports/file_bytes.hpp"

namespace ckpt {

// The global_step of a trainer_state.json document, if the whole document is valid JSON, its
// top level is an object, and global_step is an integer there. The completeness check runs on
// every commit, recovery and link update, and trainer_state.json carries every callback's
// state, so this validates the text in one pass without building a JSON tree or any token.
std::optional<std::int64_t> probe_global_step(std::string_view trainer_state_json);

// The same answer for a document read as runs (FileSystem::read_bytes). A run that is a prefix of
// a buffer already validated as a list of array elements, and that sits where an array's
// elements go, is validated only from where the last probe of that buffer stopped; anything else
// is joined and scanned whole. A writer that appends a record to its own buffer at every save
// (Transformers' log_history) is probed in time linear in the run, not in the number of saves.
std::optional<std::int64_t> probe_global_step(const FileBytes& trainer_state_json);

// The text of document["stateful_callbacks"]["CheckpointEvaluationTriggerCallback"] as a parsed
// tree holds it (the last occurrence of each name) when the whole document is valid JSON with an
// object at its top level and both members exist; nothing otherwise. Validated as
// probe_global_step validates, so a reader of the trigger callback's saved state parses that
// entry alone, not the whole file with its log_history and every other callback's state.
std::optional<std::string> probe_trigger_callback_entry(const FileBytes& trainer_state_json);

namespace probe_detail {

// Where a value lies in a scanned text (at is npos when there is none).
struct TextSpan {
    std::size_t at = std::string_view::npos;
    std::size_t length = 0;
    bool found() const { return at != std::string_view::npos; }
};

// One scan of a whole text: whether it is a valid document with an object at its top level, its
// global_step, whether an element of an array starts exactly at offset `watched`, and where the
// last trigger callback entry of the last top-level stateful_callbacks value lies.
struct ScanOutcome {
    bool valid_object = false;
    std::optional<std::int64_t> step;
    bool array_element_at_watched = false;
    TextSpan trigger_callback;
};
ScanOutcome scan_trainer_state(std::string_view text, std::size_t watched);

}  // namespace probe_detail

}  // namespace ckpt
