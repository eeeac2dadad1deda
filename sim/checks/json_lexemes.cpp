// The lexemes of json_lexemes.hpp, each nlohmann 3.11's lexer restated: its string states
// (RFC 3629's UTF-8 table, the escapes, the surrogate pairs) and its number states, plus the
// parser's refusal of a number that overflows a double, which only the rare number near that
// range hands to nlohmann itself.
#include "sim/checks/json_lexemes.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "policy/base/byte_words.hpp"

namespace ckpt::sim {
namespace {

// What a byte means inside a string.
enum StringByte : std::uint8_t {
    plain,
    quote,
    backslash,
    forbidden,  // a control character, or a byte that starts no well-formed UTF-8 sequence
    lead2,      // C2..DF: one continuation
    lead_e0,    // E0: A0..BF, then one continuation
    lead3,      // E1..EC, EE..EF: two continuations
    lead_ed,    // ED: 80..9F (no UTF-16 surrogates), then one continuation
    lead_f0,    // F0: 90..BF, then two continuations
    lead4,      // F1..F3: three continuations
    lead_f4,    // F4: 80..8F (nothing past U+10FFFF), then two continuations
};

constexpr std::array<std::uint8_t, 256> make_string_bytes() {
    std::array<std::uint8_t, 256> bytes{};
    for (int b = 0; b < 256; ++b) {
        std::uint8_t kind = forbidden;
        if (b >= 0x20 && b < 0x80) {
            kind = b == '"' ? quote : b == '\\' ? backslash : plain;
        } else if (b >= 0xC2 && b <= 0xDF) {
            kind = lead2;
        } else if (b == 0xE0) {
            kind = lead_e0;
        } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
            kind = lead3;
        } else if (b == 0xED) {
            kind = lead_ed;
        } else if (b == 0xF0) {
            kind = lead_f0;
        } else if (b >= 0xF1 && b <= 0xF3) {
            kind = lead4;
        } else if (b == 0xF4) {
            kind = lead_f4;
        }
        bytes[static_cast<std::size_t>(b)] = kind;
    }
    return bytes;
}

constexpr auto kStringBytes = make_string_bytes();

// A double's largest finite value is below 10^309; a number whose integer digits plus exponent
// stay at or under this cannot overflow, so only the others need nlohmann's own conversion.
constexpr std::ptrdiff_t kSurelyFiniteMagnitude = 308;
constexpr std::ptrdiff_t kExponentCap = 1'000'000;

constexpr bool is_digit(int c) {
    return c >= '0' && c <= '9';
}

int hex_value(int c) {
    if (is_digit(c)) {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

}  // namespace

void JsonCursor::skip_whitespace_run() noexcept {
    while (at < end) {
        const unsigned char c = *at;
        if (c == ' ' && end - at >= 8) {  // a run of indentation: up to eight spaces in one step
            at += byte_words::leading_spaces(at);
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            ++at;
        } else {
            return;
        }
    }
}

// At the opening quote; ends past the closing one.
bool JsonCursor::string() {
    ++at;
    while (true) {
        while (end - at >= 8 && byte_words::all_unescaped_json(byte_words::load(at))) {
            at += 8;
        }
        while (at < end && kStringBytes[*at] == plain) {
            ++at;
        }
        if (at == end) {
            return false;
        }
        const std::uint8_t kind = kStringBytes[*at];
        if (kind == quote) {
            ++at;
            return true;
        }
        const bool ok = kind == backslash ? escape() : kind != forbidden && utf8_sequence(kind);
        if (!ok) {
            return false;
        }
    }
}

// At a backslash. A high surrogate must be followed by an escaped low one; a low one alone fails.
bool JsonCursor::escape() {
    ++at;
    switch (peek()) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            ++at;
            return true;
        case 'u': {
            ++at;
            unsigned unit = 0;
            if (!code_unit(unit) || (unit >= 0xDC00 && unit <= 0xDFFF)) {
                return false;
            }
            if (unit < 0xD800 || unit > 0xDBFF) {
                return true;
            }
            if (end - at < 2 || at[0] != '\\' || at[1] != 'u') {
                return false;
            }
            at += 2;
            return code_unit(unit) && unit >= 0xDC00 && unit <= 0xDFFF;
        }
        default:
            return false;
    }
}

bool JsonCursor::code_unit(unsigned& unit) {
    if (end - at < 4) {
        return false;
    }
    unit = 0;
    for (int i = 0; i < 4; ++i) {
        const int digit = hex_value(*at++);
        if (digit < 0) {
            return false;
        }
        unit = unit * 16 + static_cast<unsigned>(digit);
    }
    return true;
}

bool JsonCursor::continuation(unsigned low, unsigned high) {
    if (at == end || *at < low || *at > high) {
        return false;
    }
    ++at;
    return true;
}

// At a lead byte of a multi-byte sequence (RFC 3629's table, as nlohmann checks it).
bool JsonCursor::utf8_sequence(std::uint8_t lead) {
    ++at;
    switch (lead) {
        case lead2:
            return continuation(0x80, 0xBF);
        case lead_e0:
            return continuation(0xA0, 0xBF) && continuation(0x80, 0xBF);
        case lead3:
            return continuation(0x80, 0xBF) && continuation(0x80, 0xBF);
        case lead_ed:
            return continuation(0x80, 0x9F) && continuation(0x80, 0xBF);
        case lead_f0:
            return continuation(0x90, 0xBF) && continuation(0x80, 0xBF) && continuation(0x80, 0xBF);
        case lead4:
            return continuation(0x80, 0xBF) && continuation(0x80, 0xBF) && continuation(0x80, 0xBF);
        default:  // lead_f4
            return continuation(0x80, 0x8F) && continuation(0x80, 0xBF) && continuation(0x80, 0xBF);
    }
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and, as nlohmann's parser refuses a number
// that converts to an infinite double, finite.
bool JsonCursor::number() {
    const unsigned char* begin = at;
    if (peek() == '-') {
        ++at;
    }
    const unsigned char* digits = at;
    if (peek() == '0') {
        ++at;
    } else if (is_digit(peek())) {
        while (is_digit(peek())) {
            ++at;
        }
    } else {
        return false;
    }
    const std::ptrdiff_t integer_digits = at - digits;
    if (peek() == '.') {
        ++at;
        if (!is_digit(peek())) {
            return false;
        }
        while (is_digit(peek())) {
            ++at;
        }
    }
    std::ptrdiff_t exponent = 0;
    if (peek() == 'e' || peek() == 'E') {
        ++at;
        const bool negative = peek() == '-';
        if (peek() == '-' || peek() == '+') {
            ++at;
        }
        if (!is_digit(peek())) {
            return false;
        }
        for (; is_digit(peek()); ++at) {
            exponent = exponent < kExponentCap ? exponent * 10 + (peek() - '0') : exponent;
        }
        exponent = negative ? -exponent : exponent;
    }
    return integer_digits + exponent <= kSurelyFiniteMagnitude ||
           nlohmann::json::accept(
               std::string_view(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(at - begin)));
}

bool JsonCursor::literal(std::string_view word) {
    if (static_cast<std::size_t>(end - at) < word.size() ||
        std::string_view(reinterpret_cast<const char*>(at), word.size()) != word) {
        return false;
    }
    at += word.size();
    return true;
}

}  // namespace ckpt::sim
