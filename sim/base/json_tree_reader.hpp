// The simulated Transformers' reads of its own texts (trainer_state.json as json_text.hpp writes
// it) as Python's json.loads reads them, without nlohmann's lexer, which copies every byte of every
// token.
//
// Contract: the tree is nlohmann::json::parse(text)'s (the same value types: an integer with a
// minus sign is number_integer, without one number_unsigned, one with a fraction or an exponent
// number_float; the same doubles, correctly rounded; the last of duplicate keys) with two
// differences, both json.loads's: a NUL byte anywhere refuses the text, and in the python dialect
// NaN, Infinity and -Infinity where a value stands read as number_float nan, inf and -inf (json.dumps
// writes a logged grad_norm of nan or inf so: finding 28). read_simple_json reads only a simple
// subset (strings of printable ASCII without escapes, integers of at most 18 digits, finite doubles
// or the constants, nesting up to kSimpleJsonDepth, only JSON whitespace around); anything else,
// valid or not, declines, and parse_json_text hands it to nlohmann, whose result or parse_error
// stands. The simulator's own reader: the port's parsers are code under test. Depends on nlohmann.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt::sim {

inline constexpr std::size_t kSimpleJsonDepth = 64;

// Whose reader a text is read with: Python's json.loads (Transformers' trainer_state.json and
// weights index, the seed's files) or a strict RFC 8259 reader (serde_json's safetensors header).
enum class JsonDialect { python, strict };

std::optional<nlohmann::json> read_simple_json(std::string_view text,
                                               JsonDialect dialect = JsonDialect::python);

// nlohmann::json::parse(text), through read_simple_json when it reads the text, and a parse_error
// for a text holding a NUL byte anywhere. Transformers reads trainer_state.json with Python's
// json.loads, which refuses one (as extra data after a document, as a control character inside a
// string), where nlohmann takes it for the end of the input (finding 27: a torn write that zero-fills
// the last newline).
nlohmann::json parse_json_text(std::string_view text, JsonDialect dialect = JsonDialect::python);

// Whether parse_json_text(text, dialect) returns rather than throws.
bool json_text_is_valid(std::string_view text, JsonDialect dialect = JsonDialect::python);

// parse_json_text(text, dialect), or a discarded value where it would throw.
nlohmann::json parse_json_text_or_discarded(std::string_view text, JsonDialect dialect = JsonDialect::python);

}  // namespace ckpt::sim
