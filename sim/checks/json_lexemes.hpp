// The lexemes of JSON exactly as nlohmann::json::parse reads them, for the validating scanner
// (json_scanner.hpp): a string (escapes, surrogate pairs, control characters, UTF-8), a number
// (grammar, and finite as a double) and a literal. Each reads from `at` and, when the lexeme is
// valid, leaves `at` just past it. Reads nothing past `end`; copies nothing.
#pragma once

#include <cstdint>
#include <string_view>

namespace ckpt::sim {

struct JsonCursor {
    const unsigned char* at;
    const unsigned char* end;

    // nlohmann ends the input at a NUL byte as at its end; inside a string both are errors.
    int peek() const noexcept { return at < end ? *at : 0; }
    // Inline for the common case of no whitespace at all (between a value and its comma).
    void skip_whitespace() noexcept {
        if (at < end && *at <= ' ') {
            skip_whitespace_run();
        }
    }
    bool string();  // at the opening quote
    bool number();  // at the sign or first digit
    bool literal(std::string_view word);

  private:
    void skip_whitespace_run() noexcept;
    bool escape();
    bool code_unit(unsigned& unit);
    bool utf8_sequence(std::uint8_t lead);
    bool continuation(unsigned low, unsigned high);
};

}  // namespace ckpt::sim
