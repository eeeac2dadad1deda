// nlohmann::json::parse for the simulated Transformers' own texts (trainer_state.json as
// json_text.hpp writes it), without nlohmann's lexer, which copies every byte of every token.
//
// Contract: read_simple_json(text) either declines (std::nullopt) or returns exactly the tree
// nlohmann::json::parse(text) returns: the same value types (an integer with a minus sign is
// number_integer, without one number_unsigned, one with a fraction or an exponent number_float),
// the same doubles (correctly rounded), the last of duplicate keys. It reads only a simple subset
// (strings of printable ASCII without escapes, integers of at most 18 digits, finite doubles,
// nesting up to kSimpleJsonDepth, only JSON whitespace around); anything else, valid or not,
// declines, and parse_json_text hands it to nlohmann, whose result or parse_error stands.
// The simulator's own reader: the port's parsers are code under test. Depends on nlohmann only.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt::sim {

inline constexpr std::size_t kSimpleJsonDepth = 64;

std::optional<nlohmann::json> read_simple_json(std::string_view text);

// nlohmann::json::parse(text), through read_simple_json when it reads the text, and a parse_error
// for a text holding a NUL byte anywhere. Transformers reads trainer_state.json with Python's
// json.loads, which refuses one (as extra data after a document, as a control character inside a
// string), where nlohmann takes it for the end of the input (finding 27: a torn write that zero-fills
// the last newline).
nlohmann::json parse_json_text(std::string_view text);

// Whether parse_json_text(text) returns rather than throws.
bool json_text_is_valid(std::string_view text);

// parse_json_text(text), or a discarded value where it would throw.
nlohmann::json parse_json_text_or_discarded(std::string_view text);

}  // namespace ckpt::sim
