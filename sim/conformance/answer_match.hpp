// Whether an implementation's answer line says what the expected answer says: the same
// top-level parts, the same error kind, and equal decisions and states (numbers compared by
// value, so 1 and 1.0 agree). Error messages are never compared.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ckpt::sim::conformance {

// Empty when `actual_line` agrees with `expected`; otherwise the first difference in words,
// e.g. `decision.reason: expected "tie_reset", got "improved"`.
std::string answer_difference(const nlohmann::json& expected, const std::string& actual_line);

// True for a line that is not a JSON object (the protocol's answers always are).
bool not_a_json_object(const std::string& line);

}  // namespace ckpt::sim::conformance
