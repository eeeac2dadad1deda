// Latin-1 over UTF-8: a byte below 0x80 is itself; 0x80-0xFF are the two-byte sequences
// C2 80 .. C3 BF. Nothing else is a byte.
#include "sim/external/byte_string.hpp"

#include "sim/base/harness_error.hpp"

namespace ckpt::sim {

std::string bytes_to_code_points(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() + bytes.size() / 8);
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x80) {
            out.push_back(c);
        } else {
            out.push_back(static_cast<char>(0xC0 | (byte >> 6)));
            out.push_back(static_cast<char>(0x80 | (byte & 0x3F)));
        }
    }
    return out;
}

std::string code_points_to_bytes(std::string_view utf8) {
    std::string out;
    out.reserve(utf8.size());
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        const auto lead = static_cast<unsigned char>(utf8[i]);
        if (lead < 0x80) {
            out.push_back(static_cast<char>(lead));
            continue;
        }
        if ((lead == 0xC2 || lead == 0xC3) && i + 1 < utf8.size()) {
            const auto next = static_cast<unsigned char>(utf8[i + 1]);
            if ((next & 0xC0) == 0x80) {
                out.push_back(static_cast<char>(((lead & 0x03) << 6) | (next & 0x3F)));
                ++i;
                continue;
            }
        }
        throw HarnessError("file data holds a character above U+00FF at byte " + std::to_string(i) +
                           ": the protocol carries bytes as latin-1 code points");
    }
    return out;
}

}  // namespace ckpt::sim
