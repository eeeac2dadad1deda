// Violations grouped into classes for triage: the same property and the same message once its
// numbers are blanked ("step 25" and "step 50" are one class). A swarm over a callback with a
// known gap (the original's sidecar rename is never durable) violates in almost every scenario;
// the classes show what else it found. Deterministic: seed order in, seed order out.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/explore/explorer.hpp"

namespace ckpt::cli {

struct ViolationClass {
    sim::Property property = sim::Property::P1;
    std::string signature;        // the message with every number replaced by N
    std::uint64_t scenarios = 0;  // scenarios with at least one violation of this class
    std::uint64_t first_seed = 0;
};

// "step 25 (score 0.35)" -> "step N (score N)": digits, with a decimal point and an exponent, as
// the messages print numbers; a sign before one is part of it.
inline std::string violation_signature(std::string_view message) {
    std::string out;
    out.reserve(message.size());
    for (std::size_t i = 0; i < message.size();) {
        if (!(message[i] >= '0' && message[i] <= '9')) {
            out.push_back(message[i++]);
            continue;
        }
        while (i < message.size() &&
               ((message[i] >= '0' && message[i] <= '9') || message[i] == '.' || message[i] == 'e' ||
                ((message[i] == '-' || message[i] == '+') && message[i - 1] == 'e'))) {
            ++i;
        }
        // A minus after a name is a separator (checkpoint-194); after anything else, a sign.
        const bool after_name =
            out.size() >= 2 && std::isalnum(static_cast<unsigned char>(out[out.size() - 2]));
        if (!out.empty() && out.back() == '-' && !after_name) {
            out.pop_back();
        }
        out.push_back('N');
    }
    return out;
}

// Classes by scenarios (most first), then property, then signature.
inline std::vector<ViolationClass> violation_classes(const std::vector<sim::FoundViolation>& found) {
    std::map<std::pair<sim::Property, std::string>, ViolationClass> classes;
    for (const auto& scenario : found) {
        std::set<std::pair<sim::Property, std::string>> seen;  // a class counts a scenario once
        for (const auto& violation : scenario.violations) {
            auto key = std::make_pair(violation.property, violation_signature(violation.message));
            if (!seen.insert(key).second) {
                continue;
            }
            auto& entry = classes[key];
            if (entry.scenarios == 0) {
                entry = {key.first, key.second, 0, scenario.seed};
            }
            entry.scenarios += 1;
        }
    }
    std::vector<ViolationClass> out;
    out.reserve(classes.size());
    for (auto& [key, entry] : classes) {
        out.push_back(std::move(entry));
    }
    std::stable_sort(out.begin(), out.end(), [](const ViolationClass& a, const ViolationClass& b) {
        return a.scenarios > b.scenarios;
    });
    return out;
}

}  // namespace ckpt::cli
