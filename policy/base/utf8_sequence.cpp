// The RFC 3629 table: the lead byte fixes the length and the range of the second byte; every
// later byte is a continuation byte (80..BF). The encoder writes the shortest form.
#include "policy/base/utf8_sequence.hpp"

namespace ckpt {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const unsigned char lead = byte(0);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (i + length > text.size() || byte(1) < low || byte(1) > high) {
        return 0;
    }
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(k) < 0x80 || byte(k) > 0xBF) {
            return 0;
        }
    }
    return length;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
    const auto byte = [](std::uint32_t bits) { return static_cast<char>(bits); };
    if (code_point < 0x80) {
        out.push_back(byte(code_point));
    } else if (code_point < 0x800) {
        out.push_back(byte(0xC0 | (code_point >> 6)));
        out.push_back(byte(0x80 | (code_point & 0x3F)));
    } else if (code_point < 0x10000) {
        out.push_back(byte(0xE0 | (code_point >> 12)));
        out.push_back(byte(0x80 | ((code_point >> 6) & 0x3F)));
        out.push_back(byte(0x80 | (code_point & 0x3F)));
    } else {
        out.push_back(byte(0xF0 | (code_point >> 18)));
        out.push_back(byte(0x80 | ((code_point >> 12) & 0x3F)));
        out.push_back(byte(0x80 | ((code_point >> 6) & 0x3F)));
        out.push_back(byte(0x80 | (code_point & 0x3F)));
    }
}

}  // namespace ckpt
