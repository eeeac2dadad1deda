#pragma once

// A fast path for nlohmann::json::parse on the documents ckptsim writes itself.
//
// Contract: parse_plain_json(text) either declines (std::nullopt) or returns exactly the tree
// nlohmann::json::parse(text) returns: the same value types (an integer without a sign is
// number_unsigned, one with a minus sign number_integer, any fraction or exponent number_float),
// the same doubles (correctly rounded, as glibc's strtod), the last of duplicate keys. It accepts
// only a plain subset of JSON: printable ASCII strings without escapes, integers of at most 18
// digits, finite doubles, nesting at most kPlainJsonDepth, nothing after the value but
// whitespace. Anything else, valid or not, declines, so the caller hands the text to nlohmann,
// which decides it with its own result or error. parse_json and parse_json_or_discarded are those
// two steps in one call.
//
// Why: nlohmann's lexer builds every token byte by byte; the trainer_state.json of every resume
// and commit was the largest share of a simulated scenario's parsing. Depends on nlohmann only.

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt {

inline constexpr std::size_t kPlainJsonDepth = 64;

// What the fast path does with a key repeated within one object: keep the last value, as
// nlohmann does, or decline (for a caller that refuses duplicates: nlohmann's path then finds it).
enum class PlainDuplicateKeys { last_wins, decline };

std::optional<nlohmann::json> parse_plain_json(std::string_view text,
                                               PlainDuplicateKeys duplicates = PlainDuplicateKeys::last_wins);

// nlohmann::json::parse(text): throws nlohmann's parse_error on invalid text.
nlohmann::json parse_json(std::string_view text);

// nlohmann::json::parse(text, nullptr, false): a discarded value on invalid text.
nlohmann::json parse_json_or_discarded(std::string_view text);

}  // namespace ckpt
