#pragma once

// What makes a file `inspect` reads foreign even when the callback itself would accept it: the
// wrong shape of trainer_state.json's stateful_callbacks (Transformers' _load_callback_state
// raises on it), fields of the sidecar no version of it writes, and checkpoint-N names that a
// resume reads differently from ckptsim. Each finding is a description; the inspector files it.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt {

// Where stateful_callbacks departs from {class name: state or [states]} with each state an
// object whose "args" and "attributes" (when present) are objects. Empty when it is absent or well formed.
std::vector<std::string> stateful_callbacks_defects(const nlohmann::json& trainer_state);

// The sidecar fields, at the top level, in checkpoint_eval_state and in its "state", that no
// sidecar version writes ("checkpoint_eval_state.state.x"), in document order.
std::vector<std::string> unknown_sidecar_fields(const nlohmann::json& sidecar);

// The sidecar fields whose JSON type is not the one the callback writes ("...evaluation_count
// is a float, not an integer"), although the seed's Python coercions may still accept them.
std::vector<std::string> sidecar_type_defects(const nlohmann::json& sidecar);

// Why a directory entry named "checkpoint-..." is not one ckptsim and a resume read alike, or
// empty: N must be decimal digits without a leading zero that an int64 holds.
std::string checkpoint_name_defect(const std::string& name);

}  // namespace ckpt
