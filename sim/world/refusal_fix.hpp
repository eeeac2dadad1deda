// What a user does after a refused start: read the refusal message, apply the fix it names to the
// training arguments, and launch again. A refusal is then a verdict (P14 judges it), not the end
// of a scenario that tested nothing. Depends on the scenario vocabulary only.
#pragma once

#include <string_view>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// Applies to `trainer` the fix `refusal` names and returns what was changed, as
// "setting=value"; an empty view when the message names no fix this knows (the job then ends
// refused). The fixes are the messages' own advice: save_strategy "steps"; the callback's metric
// as metric_for_best_model, greater being better; save_total_limit 2;
// restore_callback_states_from_checkpoint false.
std::string_view apply_fix_named_in(std::string_view refusal, TrainerOptions& trainer);

}  // namespace ckpt::sim
