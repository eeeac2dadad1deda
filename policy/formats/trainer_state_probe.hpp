// A tree-free check of a trainer_state.json's top-level global_step, the test behind
// "checkpoint complete". Never throws: anything but a valid document (as nlohmann::json::parse
// judges validity) with an integer global_step is "no step". Depends on nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ckpt {

// The global_step of a trainer_state.json document, if the whole document is valid JSON, its
// top level is an object, and global_step is an integer there. The completeness check runs on
// every commit, recovery and link update, and trainer_state.json carries every callback's
// state, so this validates the text in one pass without building a JSON tree or any token.
std::optional<std::int64_t> probe_global_step(std::string_view trainer_state_json);

}  // namespace ckpt
