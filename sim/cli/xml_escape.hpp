// Text made safe for XML character data and for attribute values in either quote style: the five
// predefined entities, and the control characters XML 1.0 forbids even escaped turned into '?'.
// The JUnit report and the SVG timeline both write it.
#pragma once

#include <string>
#include <string_view>

namespace ckpt::cli {

inline std::string xml_escaped(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? '?' : c;
        }
    }
    return out;
}

}  // namespace ckpt::cli
