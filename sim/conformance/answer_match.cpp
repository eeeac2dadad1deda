// A structural comparison that stops at the first difference and names its path.
#include "sim/conformance/answer_match.hpp"

namespace ckpt::sim::conformance {
namespace {

using nlohmann::json;

std::string shown(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The first path at which `actual` differs from `expected`, or empty.
std::string difference(const json& expected, const json& actual, const std::string& path) {
    if (expected.is_number() && actual.is_number()) {
        return expected.get<double>() == actual.get<double>()
                   ? std::string()
                   : path + ": expected " + shown(expected) + ", got " + shown(actual);
    }
    if (expected.type() != actual.type()) {
        return path + ": expected " + shown(expected) + ", got " + shown(actual);
    }
    if (expected.is_object()) {
        for (const auto& [key, value] : expected.items()) {
            if (!actual.contains(key)) {
                return path + "." + key + ": missing (expected " + shown(value) + ")";
            }
            if (auto found = difference(value, actual[key], path + "." + key); !found.empty()) {
                return found;
            }
        }
        for (const auto& [key, value] : actual.items()) {
            if (!expected.contains(key)) {
                return path + "." + key + ": not expected (got " + shown(value) + ")";
            }
        }
        return {};
    }
    if (expected.is_array()) {
        if (expected.size() != actual.size()) {
            return path + ": expected " + shown(expected) + ", got " + shown(actual);
        }
        for (std::size_t i = 0; i < expected.size(); ++i) {
            if (auto found = difference(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
                !found.empty()) {
                return found;
            }
        }
        return {};
    }
    return expected == actual ? std::string()
                              : path + ": expected " + shown(expected) + ", got " + shown(actual);
}

}  // namespace

bool not_a_json_object(const std::string& line) {
    const auto parsed = json::parse(line, nullptr, false);
    return parsed.is_discarded() || !parsed.is_object();
}

std::string answer_difference(const json& expected, const std::string& actual_line) {
    const auto actual = json::parse(actual_line, nullptr, false);
    if (actual.is_discarded() || !actual.is_object()) {
        return "the answer is not a JSON object";
    }
    for (const char* part : {"decision", "state", "error"}) {
        if (expected.contains(part) != actual.contains(part)) {
            return expected.contains(part)
                       ? std::string("no '") + part + "' where one is expected"
                       : std::string("an unexpected '") + part + "': " + shown(actual[part]);
        }
    }
    if (expected.contains("error")) {
        const auto& error = actual["error"];
        if (!error.is_object() || !error.contains("kind")) {
            return "error: no 'kind' (got " + shown(error) + ")";
        }
        if (auto found = difference(expected["error"]["kind"], error["kind"], "error.kind"); !found.empty()) {
            return found;
        }
    }
    if (expected.contains("decision") && expected["decision"].is_object() && actual["decision"].is_object()) {
        // What the decision says before the numbers that follow from it.
        for (const char* key : {"reason", "should_save", "should_stop"}) {
            if (expected["decision"].contains(key) && actual["decision"].contains(key)) {
                if (auto found = difference(expected["decision"][key], actual["decision"][key],
                                            std::string("decision.") + key);
                    !found.empty()) {
                    return found;
                }
            }
        }
    }
    for (const char* part : {"decision", "state"}) {
        if (expected.contains(part)) {
            if (auto found = difference(expected[part], actual[part], part); !found.empty()) {
                return found;
            }
        }
    }
    return {};
}

}  // namespace ckpt::sim::conformance
