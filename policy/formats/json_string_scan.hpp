// One JSON string lexeme, scanned from its opening quote as nlohmann::json::parse reads strings:
// escapes (\u with surrogate pairs), no control characters, UTF-8 as RFC 3629 draws it. No token
// is copied unless the caller asks for the decoded value. Header-only, for the completeness
// probe's inner loop; depends on the port's UTF-8 rule and byte_words only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policy/base/byte_words.hpp"
#include "policy/base/utf8_sequence.hpp"

namespace ckpt {
namespace json_string_detail {

// The bytes a JSON string holds as they are (ASCII from the space up, but the quote and the
// backslash); control bytes, escapes and UTF-8 sequences take the byte-by-byte path.
constexpr std::array<bool, 256> kSelfStandingByte = [] {
    std::array<bool, 256> plain{};
    for (int byte = 0x20; byte < 0x80; ++byte) {
        plain[static_cast<std::size_t>(byte)] = byte != '"' && byte != '\\';
    }
    return plain;
}();
// The word test skips exactly the bytes the table lets through.
static_assert([] {
    for (std::size_t byte = 0; byte < 256; ++byte) {
        if (byte_words::all_unescaped_json(byte_words::kOnes * byte) != kSelfStandingByte[byte]) {
            return false;
        }
    }
    return true;
}());

class StringLexeme {
  public:
    StringLexeme(const char*& at, const char* end) : at_(at), end_(end) {}

    bool scan(std::string* decoded) {
        ++at_;
        for (;;) {
            // A run of bytes that stand for themselves: eight at a time, then one table look-up a
            // byte (byte_words' unescaped bytes are exactly kSelfStandingByte's).
            const char* run = at_;
            while (end_ - at_ >= 8 && byte_words::all_unescaped_json(byte_words::load(at_))) {
                at_ += 8;
            }
            while (at_ != end_ && kSelfStandingByte[static_cast<unsigned char>(*at_)]) {
                ++at_;
            }
            if (decoded != nullptr && at_ != run) {
                decoded->append(run, at_);
            }
            if (at_ == end_) {
                return false;
            }
            const auto byte = static_cast<unsigned char>(*at_);
            if (byte == '"') {
                ++at_;
                return true;
            }
            if (byte == '\\') {
                if (!scan_escape(decoded)) {
                    return false;
                }
            } else if (byte < 0x20) {
                return false;
            } else if (byte < 0x80) {
                if (decoded != nullptr) {
                    decoded->push_back(static_cast<char>(byte));
                }
                ++at_;
            } else {
                const char* start = at_;
                if (!scan_utf8_sequence()) {
                    return false;
                }
                if (decoded != nullptr) {
                    decoded->append(start, at_);
                }
            }
        }
    }

    bool scan_escape(std::string* decoded) {
        ++at_;  // the backslash
        if (at_ == end_) {
            return false;
        }
        const char kind = *at_++;
        char plain = 0;
        switch (kind) {
            case '"':
            case '\\':
            case '/':
                plain = kind;
                break;
            case 'b':
                plain = '\b';
                break;
            case 'f':
                plain = '\f';
                break;
            case 'n':
                plain = '\n';
                break;
            case 'r':
                plain = '\r';
                break;
            case 't':
                plain = '\t';
                break;
            case 'u':
                return scan_unicode_escape(decoded);
            default:
                return false;
        }
        if (decoded != nullptr) {
            decoded->push_back(plain);
        }
        return true;
    }

    // After "\u": four hex digits; a high surrogate must be followed by "\u" and a low one.
    bool scan_unicode_escape(std::string* decoded) {
        auto code_point = read_hex4();
        if (!code_point) {
            return false;
        }
        if (*code_point >= 0xDC00 && *code_point <= 0xDFFF) {
            return false;  // a low surrogate with no high one before it
        }
        if (*code_point >= 0xD800 && *code_point <= 0xDBFF) {
            if (end_ - at_ < 2 || at_[0] != '\\' || at_[1] != 'u') {
                return false;
            }
            at_ += 2;
            const auto low = read_hex4();
            if (!low || *low < 0xDC00 || *low > 0xDFFF) {
                return false;
            }
            code_point = 0x10000 + ((*code_point - 0xD800) << 10) + (*low - 0xDC00);
        }
        if (decoded != nullptr) {
            append_utf8(*decoded, *code_point);
        }
        return true;
    }

    std::optional<std::uint32_t> read_hex4() {
        if (end_ - at_ < 4) {
            return std::nullopt;
        }
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = *at_++;
            std::uint32_t digit = 0;
            if (c >= '0' && c <= '9') {
                digit = static_cast<std::uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                digit = static_cast<std::uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                digit = static_cast<std::uint32_t>(c - 'A' + 10);
            } else {
                return std::nullopt;
            }
            value = value * 16 + digit;
        }
        return value;
    }

    // One multi-byte UTF-8 sequence, valid as RFC 3629 draws it.
    bool scan_utf8_sequence() {
        const auto length =
            utf8_sequence_length(std::string_view(at_, static_cast<std::size_t>(end_ - at_)), 0);
        at_ += length;
        return length != 0;
    }

  private:
    const char*& at_;
    const char* end_;
};

}  // namespace json_string_detail

// Whether [at, end) starts with a valid JSON string (at on its opening quote); on success `at` is
// past the closing quote and `decoded`, when given, has received the string's value.
inline bool scan_json_string(const char*& at, const char* end, std::string* decoded) {
    return json_string_detail::StringLexeme(at, end).scan(decoded);
}

}  // namespace ckpt
