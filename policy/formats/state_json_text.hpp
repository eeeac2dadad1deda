// The policy's state_dict as text, written without a JSON tree, byte-for-byte what the seed's
// json.dump(sort_keys=True) writes (floats as Python's repr). Used by the sidecar writer on
// every evaluation; depends on core/ and python/.
#pragma once

#include <string>

#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt {

// The text of state_dict() written directly, without building a JSON tree: what the sidecar
// holds, written on every evaluation. The layout is Python's json.dump(..., sort_keys=True)
// (indent 0 is the compact form, indent 2 the sidecar's), and floats are Python's repr, so a
// file we write is byte-for-byte what the seed writes for the same state.
std::string state_dict_text(const CheckpointEvaluationPolicy& policy, int indent = 0);

// The same text for embedding at nesting `depth` of an indented document (its closing brace is
// indented for that depth), as sidecar_format.cpp embeds it in the sidecar.
std::string state_dict_text_at_depth(const CheckpointEvaluationPolicy& policy, int indent, int depth);

}  // namespace ckpt
