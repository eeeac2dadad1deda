// Where a UTF-8 sequence ends: the one validity rule (RFC 3629) every reader of untrusted text in
// the port applies, as nlohmann's lexer does; and the encoding of a code point. Depends on nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt {

// The length of the UTF-8 sequence starting at text[i], or 0 when it is not a valid one
// (overlong forms, surrogates and code points past U+10FFFF are invalid, as RFC 3629 says).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Appends the UTF-8 encoding of `code_point` (at most U+10FFFF, not a surrogate) to `out`.
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace ckpt
