#pragma once

// The differential oracle of json_scanner.hpp, shared by its tests and its libFuzzer target:
// nlohmann::json::parse (and accept) on the same text must give the same verdict (a text holding a
// NUL byte refused, as Python's json.loads refuses it), and the
// members the scanner locates must parse to the DOM's values, type and bytes alike; so must
// read_top_level_fields, and top_level_members' list (the last of a repeated name standing for
// it). Empty when they agree, else what differs.

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/json_scanner.hpp"
#include "sim/checks/top_level_fields.hpp"

namespace ckpt::sim::testing {

// json::parse's tree for `text`, except that a text holding a NUL byte is refused (discarded), as
// Python's json.loads refuses it, where nlohmann may take one for the end of the input. A number
// beyond a double stays refused (Python would read inf): the checkers and the port agree on that.
inline nlohmann::json python_dom(std::string_view text) {
    if (text.find('\0') != std::string_view::npos) {
        return nlohmann::json(nlohmann::json::value_t::discarded);
    }
    return nlohmann::json::parse(text, nullptr, false);
}

// The members the checkers read from trainer_state.json and the sidecar, and two short ones.
inline constexpr std::array<std::string_view, 9> kOracleNames = {"best_metric",
                                                                 "best_global_step",
                                                                 "best_model_checkpoint",
                                                                 "global_step",
                                                                 "checkpoint_eval_state",
                                                                 "last_evaluated_step",
                                                                 "version",
                                                                 "a",
                                                                 "b"};

// Type and bytes alike, member by member, walked with an explicit stack: nlohmann's dump() and
// operator== recurse, and the nesting cases go 5,000 levels deep, past the native stack under
// AddressSanitizer's larger frames.
inline bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
    std::vector<std::pair<const nlohmann::json*, const nlohmann::json*>> todo{{&a, &b}};
    while (!todo.empty()) {
        const auto [left, right] = todo.back();
        todo.pop_back();
        if (left->type() != right->type() || left->size() != right->size()) {
            return false;
        }
        if (left->is_object()) {
            for (auto l = left->begin(), r = right->begin(); l != left->end(); ++l, ++r) {
                if (l.key() != r.key()) {
                    return false;
                }
                todo.emplace_back(&*l, &*r);
            }
        } else if (left->is_array()) {
            for (std::size_t i = 0; i < left->size(); ++i) {
                todo.emplace_back(&(*left)[i], &(*right)[i]);
            }
        } else if (left->dump() != right->dump()) {
            return false;
        }
    }
    return true;
}

// top_level_members against the DOM: listed exactly for an object, and its last value of each name
// parses to the DOM's member of that name, for every name the DOM holds.
inline std::string members_disagreement(std::string_view text, const nlohmann::json& dom,
                                        JsonShape expected) {
    const auto members = top_level_members(text);
    if (members.has_value() != (expected == JsonShape::object)) {
        return "top_level_members lists an object's members exactly when the text is one";
    }
    if (!members) {
        return {};
    }
    std::map<std::string, std::string_view, std::less<>> last;
    for (const auto& member : *members) {
        last[member.name] = member.value;
    }
    if (last.size() != dom.size()) {
        return "top_level_members names " + std::to_string(last.size()) + " members, the DOM " +
               std::to_string(dom.size());
    }
    for (const auto& [name, value] : last) {
        if (!dom.contains(name) || !same_json(nlohmann::json::parse(value), dom[name])) {
            return "top_level_members' " + name + " differs from the DOM's: " + std::string(value);
        }
    }
    return {};
}

inline std::string scanner_disagreement(std::string_view text) {
    using nlohmann::json;
    const auto parsed = json::parse(text, nullptr, false);
    if (json::accept(text) == parsed.is_discarded()) {
        return "nlohmann's accept and parse disagree";  // the oracle itself would be unsound
    }
    const auto dom = python_dom(text);
    std::array<std::string_view, kOracleNames.size()> values;
    const auto shape = scan_json(text, kOracleNames, values);
    const auto expected = dom.is_discarded() ? JsonShape::invalid
                          : dom.is_object()  ? JsonShape::object
                                             : JsonShape::other;
    if (shape != expected) {
        return "verdict " + std::to_string(static_cast<int>(shape)) + ", nlohmann's " +
               std::to_string(static_cast<int>(expected));
    }
    std::map<std::string, json, std::less<>> by_dom;
    for (std::size_t i = 0; i < kOracleNames.size(); ++i) {
        const auto name = std::string(kOracleNames[i]);
        const bool present = expected == JsonShape::object && dom.contains(name);
        if (present != !values[i].empty()) {
            return "member " + name + (present ? " missed" : " invented");
        }
        if (present) {
            by_dom[name] = dom[name];
            if (!same_json(json::parse(values[i]), dom[name])) {
                return "member " + name + ": scanned " + std::string(values[i]) + ", parsed " +
                       dom[name].dump();
            }
        }
    }
    const auto fields = read_top_level_fields(
        text, {"best_metric", "best_global_step", "best_model_checkpoint", "global_step",
               "checkpoint_eval_state", "last_evaluated_step", "version", "a", "b"});
    if (fields.has_value() != (expected == JsonShape::object) || (fields && *fields != by_dom)) {
        return "read_top_level_fields differs from the DOM";
    }
    return members_disagreement(text, dom, expected);
}

}  // namespace ckpt::sim::testing
