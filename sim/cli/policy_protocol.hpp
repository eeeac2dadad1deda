#pragma once

// One request line of the `ckptsim policy` JSON Lines protocol (docs/policy-protocol.md): its
// answer, or {"error": {"kind": "input_error", "message": "line N: ..."}} for a line that is not
// one of the protocol's forms. Never throws for the line's content. Used by the command and by
// fuzz/policy_line_fuzzer.cpp.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt::cli {

// Far longer than any request (a load line is about 300 bytes); a longer line is refused
// without being held in memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// The answer to line `line_number` (counted from 1). `too_long` says the line was cut at
// kMaxLineBytes; `any_input_error` is set when the answer is an input_error.
nlohmann::json answer_policy_line(CheckpointEvaluationPolicy& policy, const std::string& line,
                                  std::size_t line_number, bool too_long, bool& any_input_error);

}  // namespace ckpt::cli
