// The reference answers for the trainer_state.json probes: nlohmann::json::parse of the whole
// text (Python's NaN, Infinity and -Infinity read as numbers), then its top-level global_step if
// that is an int64 integer, or the trigger callback's entry.
// Test support; depends on nlohmann.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt::testing {

// `text` with each NaN, Infinity and -Infinity that stands where a value may (outside a string,
// after the start, '[', ',' or ':' and any whitespace, and before whitespace, ',', ']', '}' or the
// end) replaced by a float of the same length, so
// nlohmann judges the rest of the text as Python's json.loads judges it with the constants.
inline std::string python_constants_as_numbers(std::string_view text) {
    std::string out(text);
    bool in_string = false;
    char last_token = '[';  // the last byte outside strings and whitespace; '[' at the start
    for (std::size_t at = 0; at < out.size(); ++at) {
        const char c = out[at];
        if (in_string) {
            if (c == '\\') {
                ++at;
            } else if (c == '"') {
                in_string = false;
                last_token = '"';
            }
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            continue;
        }
        if (c == '"') {
            in_string = true;
            continue;
        }
        if (last_token == '[' || last_token == ',' || last_token == ':') {
            for (const std::string_view constant : {"NaN", "Infinity", "-Infinity"}) {
                // Followed by a byte that ends a value, or by nothing: "NaN5", which json.loads
                // refuses, must not become the number "0.05".
                const auto after = at + constant.size();
                const bool ends = after >= out.size() ||
                                  std::string_view(" \n\r\t,]}").find(out[after]) != std::string_view::npos;
                if (ends && std::string_view(out).substr(at, constant.size()) == constant) {
                    const std::string number = constant[0] == '-' ? "-0.0" : "0.0";  // a float, as theirs
                    out.replace(at, constant.size(),
                                number + std::string(constant.size() - number.size(), ' '));
                    break;
                }
            }
        }
        last_token = out[at];
    }
    return out;
}

// What parsing the whole text as a tree says: an object whose global_step is an int64 integer.
inline std::optional<std::int64_t> parsed_global_step(std::string_view text) {
    if (text.find('\0') != std::string_view::npos) {
        return std::nullopt;  // nlohmann's lexer would stop there; the probe refuses such a text
    }
    const auto document = nlohmann::json::parse(python_constants_as_numbers(text), nullptr, false);
    if (!document.is_object()) {
        return std::nullopt;
    }
    const auto found = document.find("global_step");
    if (found == document.end() || !found->is_number_integer() ||
        (found->is_number_unsigned() && found->get<std::uint64_t>() > INT64_MAX)) {
        return std::nullopt;
    }
    return found->get<std::int64_t>();
}

// Whether a probed trigger callback entry is what parsing the whole text says: the value of
// ["stateful_callbacks"]["CheckpointEvaluationTriggerCallback"] when the text is a valid object
// holding both, nothing otherwise.
inline bool agrees_with_parsed_trigger_entry(const std::optional<std::string>& probed,
                                             std::string_view text) {
    const auto document = text.find('\0') != std::string_view::npos
                              ? nlohmann::json(nlohmann::json::value_t::discarded)
                              : nlohmann::json::parse(python_constants_as_numbers(text), nullptr, false);
    const auto callbacks = document.is_object() ? document.find("stateful_callbacks") : document.end();
    if (!document.is_object() || callbacks == document.end() || !callbacks->is_object() ||
        !callbacks->contains("CheckpointEvaluationTriggerCallback")) {
        return !probed.has_value();
    }
    return probed.has_value() && nlohmann::json::parse(python_constants_as_numbers(*probed)) ==
                                     (*callbacks)["CheckpointEvaluationTriggerCallback"];
}

}  // namespace ckpt::testing
