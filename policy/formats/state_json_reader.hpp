// The policy's state_dict read straight from its JSON text, without building a tree. The exact
// layout state_dict_text writes (compact or indented, keys in any order, any JSON whitespace) is
// read by a small exact parser; anything else takes the general path, parse_untrusted_json then
// load_state_dict, so every refusal keeps its exception type and message. Depends on core/, base/.
#pragma once

#include <string>
#include <string_view>

#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt {

// Which reader restored the state: the exact one, or the general one over a parsed tree.
enum class StateTextPath { exact, general };

// Restores `policy` from the text of a state_dict() payload, named `document` in errors. The
// result, and every error (MalformedJson for bad JSON, ValueError for a refused state), is the
// one parse_untrusted_json(text, document) followed by load_state_dict would give. On error the
// policy is unchanged.
StateTextPath load_state_dict_text(CheckpointEvaluationPolicy& policy, std::string_view text,
                                   const std::string& document);

}  // namespace ckpt
