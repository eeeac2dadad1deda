#pragma once

// The differential oracle of json_scanner.hpp, shared by its tests and its libFuzzer target:
// nlohmann::json::parse (and accept) on the same text must give the same verdict (a text holding a
// NUL byte refused, as Python's json.loads refuses it), and the
// members the scanner locates must parse to the DOM's values, type and bytes alike; so must
// read_top_level_fields, and top_level_members' list (the last of a repeated name standing for
// it). Empty when they agree, else what differs.

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/json_scanner.hpp"
#include "sim/checks/top_level_fields.hpp"

namespace ckpt::sim::testing {

// Python's constants outside strings in `text` replaced by strings of their own (between spaces,
// so that "1NaN" stays two values in a row), which python_dom turns back into numbers in the
// parsed tree. Nothing when the text holds no constant, or already holds a stand-in's bytes.
inline constexpr std::string_view kOracleStandIn = "\"oracle-stand-in-for-";
inline std::optional<std::string> constants_as_strings(std::string_view text) {
    if (text.find(kOracleStandIn.substr(1)) != std::string_view::npos) {
        return std::nullopt;
    }
    std::string out;
    bool quoted = false;
    bool escaped = false;
    bool any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            quoted = escaped || c != '"';
            escaped = !escaped && c == '\\';
            out += c;
            continue;
        }
        bool matched = false;
        for (const std::string_view word : {"NaN", "Infinity", "-Infinity"}) {
            if (text.substr(i).starts_with(word)) {
                out.append(" ").append(kOracleStandIn).append(word).append("\" ");
                i += word.size() - 1;
                matched = any = true;
                break;
            }
        }
        if (!matched) {
            quoted = c == '"';
            out += c;
        }
    }
    return any ? std::optional<std::string>(out) : std::nullopt;
}

// Python's constants where json.loads reads them and where it refuses them, with its verdict on
// each as python3 3.11 gave it: the reference both the checkers' scanner and the simulated
// Transformers' reader are held to, beside python_dom.
struct PythonVerdict {
    std::string text;
    bool valid = false;
};
inline std::vector<PythonVerdict> python_constant_verdicts() {
    return {
        {"NaN", true},
        {"-Infinity", true},
        {"[NaN,Infinity,-Infinity]", true},
        {"[-Infinity ]", true},
        {"{\"grad_norm\": NaN, \"loss\": 1.0}", true},
        {"{\"a\":-Infinity,\"a\":1}", true},
        {"{\"a\":\"\\u00e9\",\"b\":Infinity}", true},
        {"[\"\\\"NaN\",NaN]", true},
        {"NaN5", false},
        {"1NaN", false},
        {"[1NaN]", false},
        {"-NaN", false},
        {"nan", false},
        {"[inf]", false},
        {"{NaN:1}", false},
        {"Infinityx", false},
        {"[- Infinity]", false},
        {"[--Infinity]", false},
        {"[NaN,]", false},
        {"[Infinity]]", false},
        {"[NaNNaN]", false},
        {"[NaN NaN]", false},
        {"[-InfinityE5]", false},
        {"[Infinity.5]", false},
        {std::string("[NaN]\0", 6), false},
    };
}

// json.loads's tree for `text` with nlohmann's types: nlohmann's parse, except that a text holding
// a NUL byte is refused (discarded), as Python's json.loads refuses it, where nlohmann may take one
// for the end of the input, and that NaN, Infinity and -Infinity where a value stands read as
// number_float nan, inf and -inf. A number beyond a double stays refused (Python would read inf):
// the checkers and the port agree on that.
inline nlohmann::json python_dom(std::string_view text) {
    if (text.find('\0') != std::string_view::npos) {
        return nlohmann::json(nlohmann::json::value_t::discarded);
    }
    const auto replaced = constants_as_strings(text);
    if (!replaced) {
        return nlohmann::json::parse(text, nullptr, false);
    }
    auto dom = nlohmann::json::parse(*replaced, nullptr, false);
    std::vector<nlohmann::json*> todo{&dom};
    while (!todo.empty()) {
        auto* value = todo.back();
        todo.pop_back();
        if (value->is_object()) {
            for (auto& [key, item] : value->items()) {
                if (key.starts_with(kOracleStandIn.substr(1))) {
                    return nlohmann::json(nlohmann::json::value_t::discarded);  // a constant as a name
                }
                todo.push_back(&item);
            }
        } else if (value->is_array()) {
            for (auto& item : *value) {
                todo.push_back(&item);
            }
        } else if (value->is_string() &&
                   value->get_ref<const std::string&>().starts_with(kOracleStandIn.substr(1))) {
            const auto word = value->get_ref<const std::string&>().substr(kOracleStandIn.size() - 1);
            const double infinity = std::numeric_limits<double>::infinity();
            *value = word == "NaN"        ? std::numeric_limits<double>::quiet_NaN()
                     : word == "Infinity" ? infinity
                                          : -infinity;
        }
    }
    return dom;
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
        } else if (left->is_number_float() && !std::isfinite(left->get<double>())) {
            const double l = left->get<double>();
            const double r = right->get<double>();
            if (std::isnan(l) != std::isnan(r) || (!std::isnan(l) && l != r)) {
                return false;
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
        if (!dom.contains(name) || !same_json(python_dom(value), dom[name])) {
            return "top_level_members' " + name + " differs from the DOM's: " + std::string(value);
        }
    }
    return {};
}

// Two maps of values alike name by name, a nan equal to a nan (json's == says otherwise).
template <typename Map>
bool same_members(const Map& a, const Map& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (auto l = a.begin(), r = b.begin(); l != a.end(); ++l, ++r) {
        if (l->first != r->first || !same_json(l->second, r->second)) {
            return false;
        }
    }
    return true;
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
            if (!same_json(python_dom(values[i]), dom[name])) {
                return "member " + name + ": scanned " + std::string(values[i]) + ", parsed " +
                       dom[name].dump();
            }
        }
    }
    const auto fields = read_top_level_fields(
        text, {"best_metric", "best_global_step", "best_model_checkpoint", "global_step",
               "checkpoint_eval_state", "last_evaluated_step", "version", "a", "b"});
    if (fields.has_value() != (expected == JsonShape::object) || (fields && !same_members(*fields, by_dom))) {
        return "read_top_level_fields differs from the DOM";
    }
    return members_disagreement(text, dom, expected);
}

}  // namespace ckpt::sim::testing
