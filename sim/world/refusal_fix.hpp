// What a user does after a refused start: read the refusal message, apply the fix it names to
// the training arguments (or the callbacks), and launch again. A refusal is then a verdict (P14
// judges it), not the end of a scenario that tested nothing. Depends on the scenario vocabulary
// only.
#pragma once

#include <string_view>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// Applies to `launch` the fix `refusal` names and returns what was changed, as
// "setting=value"; an empty view when the message names no fix this knows, or its fix is in
// place already (the job then ends refused). The fixes are the messages' own advice:
// save_strategy "steps"; the callback's metric as metric_for_best_model, greater being better;
// save_total_limit 2; restore_callback_states_from_checkpoint false; and for a stateful callback
// the checkpoint does not store, the resume with the callbacks it was saved with (the half of
// that advice a stock Trainer's user can take: the other, the port's refresh, is a code change).
// Transformers' own EarlyStoppingCallback's assertions are fixed the same way: the callback's
// score as metric_for_best_model, or evaluations on (following the save strategy).
std::string_view apply_fix_named_in(std::string_view refusal, Scenario& launch);

}  // namespace ckpt::sim
