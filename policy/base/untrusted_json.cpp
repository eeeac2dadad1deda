// The scan runs before nlohmann's parser because the parser stops at a NUL byte as if the input
// ended, and its error messages quote the offending bytes (which then cannot be dumped as JSON).
// Duplicate keys are found through the parser's callback, one key set per open object. Plain
// documents without a repeated key take plain_json.hpp's fast path to the same tree.
#include "policy/base/untrusted_json.hpp"

#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "policy/base/plain_json.hpp"
#include "policy/base/utf8_sequence.hpp"

namespace ckpt {

using nlohmann::json;

MalformedJson::MalformedJson(const std::string& document, std::string reason)
    : ValueError(document + ": " + reason), reason_(std::move(reason)) {}

namespace {

std::string at(std::size_t offset) {
    return " at byte " + std::to_string(offset);
}

// `text` with each NaN, Infinity and -Infinity outside strings written as " null ": the spaces
// keep a constant glued to another token ("1NaN", "NaN5"), which json.loads refuses, two values in
// a row. Nothing when the text holds none. The text already passed untrusted_json_defect.
std::optional<std::string> python_constants_as_null(std::string_view text) {
    std::string out;
    bool in_string = false;
    bool replaced = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) {
                out += text[++i];
            } else {
                in_string = c != '"';
            }
            continue;
        }
        std::size_t length = 0;
        for (const std::string_view word : {"NaN", "Infinity", "-Infinity"}) {
            if (text.substr(i).starts_with(word)) {
                length = word.size();
            }
        }
        if (length == 0) {
            in_string = c == '"';
            out += c;
            continue;
        }
        out += " null ";
        i += length - 1;
        replaced = true;
    }
    return replaced ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

}  // namespace

std::string untrusted_json_defect(std::string_view text, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            const auto length = utf8_sequence_length(text, i);
            if (length == 0) {
                return "invalid UTF-8" + at(i);
            }
            i += length;
            continue;
        }
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            return "control character " + std::to_string(c) + at(i);
        }
        if (in_string) {
            if (c == '\\') {
                i += 2;  // the escaped byte is ASCII in valid JSON; the parser checks the rest
                continue;
            }
            in_string = c != '"';
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth) {
                return "nesting deeper than " + std::to_string(max_depth) + " levels" + at(i);
            }
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
        ++i;
    }
    return {};
}

json parse_untrusted_json(std::string_view text, const std::string& document, JsonLimits limits) {
    if (auto defect = untrusted_json_defect(text, limits.max_depth); !defect.empty()) {
        throw MalformedJson(document, std::move(defect));
    }
    if (limits.python_constants_as_null) {
        if (const auto replaced = python_constants_as_null(text)) {
            limits.python_constants_as_null = false;
            return parse_untrusted_json(*replaced, document, limits);
        }
    }
    // The documents ckptsim writes are plain: read without nlohmann's callback parser into the
    // tree it would build (plain_json.hpp). A repeated key the limits refuse declines, so the
    // parser below finds and reports it; so does anything else the fast path does not decide.
    const auto duplicates =
        limits.reject_duplicate_keys ? PlainDuplicateKeys::decline : PlainDuplicateKeys::last_wins;
    if (auto plain = parse_plain_json(text, duplicates)) {
        return std::move(*plain);
    }
    std::vector<std::unordered_set<std::string>> open_objects;
    std::string duplicate;
    const json::parser_callback_t track_keys = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::object_start) {
            open_objects.emplace_back();
        } else if (event == json::parse_event_t::object_end && !open_objects.empty()) {
            open_objects.pop_back();
        } else if (event == json::parse_event_t::key && !open_objects.empty() && duplicate.empty() &&
                   !open_objects.back().insert(parsed.get<std::string>()).second) {
            duplicate = parsed.get<std::string>();
        }
        return true;
    };
    json parsed;
    try {
        parsed = limits.reject_duplicate_keys ? json::parse(text.begin(), text.end(), track_keys)
                                              : json::parse(text.begin(), text.end());
    } catch (const json::exception& error) {
        // The scan above guarantees the message quotes only valid UTF-8.
        throw MalformedJson(document, std::string("not valid JSON: ") + error.what());
    }
    if (!duplicate.empty()) {
        throw MalformedJson(document, "duplicate key " + json(duplicate).dump());
    }
    return parsed;
}

}  // namespace ckpt
