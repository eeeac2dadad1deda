// The scenario file's field reader: reads one JSON object's fields with their path in every
// error ("faults[2].rank: must be at most 7"), checks integer bounds without signed/unsigned
// surprises, and rejects unknown fields. Throws ScenarioError; used only by scenario.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "sim/base/enum_names.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim::scenario_json {

using nlohmann::json;

[[noreturn]] inline void bad_field(const std::string& field, const std::string& why) {
    throw ScenarioError("scenario field '" + field + "': " + why);
}

// Reads scenario fields with their path in every error ("faults[2].rank: ...").
class Reader {
  public:
    Reader(const json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {
        if (!object_.is_object()) {
            bad_field(prefix_.empty() ? "(document)" : prefix_, "must be a JSON object");
        }
    }

    template <typename T>
    T integer(const char* key, T fallback, T lo, T hi) const {
        const auto* value = find(key);
        if (value == nullptr) {
            return fallback;
        }
        if (!value->is_number_integer() && !value->is_number_unsigned()) {
            bad_field(path(key), "must be an integer");
        }
        if (value->is_number_unsigned()) {
            const auto raw = value->get<std::uint64_t>();
            if (raw > static_cast<std::uint64_t>(hi)) {
                bad_field(path(key), "must be at most " + std::to_string(hi));
            }
            if (static_cast<T>(raw) < lo) {
                bad_field(path(key), "must be at least " + std::to_string(lo));
            }
            return static_cast<T>(raw);
        }
        // A negative signed value, compared without converting an unsigned bound to signed
        // (UINT64_MAX would become -1).
        const auto raw = value->get<std::int64_t>();
        const bool below = raw < 0 ? (std::is_unsigned_v<T> || raw < static_cast<std::int64_t>(lo))
                                   : static_cast<std::uint64_t>(raw) < static_cast<std::uint64_t>(lo);
        const bool above = raw >= 0 && static_cast<std::uint64_t>(raw) > static_cast<std::uint64_t>(hi);
        if (below || above) {
            bad_field(path(key), "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
        }
        return static_cast<T>(raw);
    }

    // A number within [lo, hi]; `range` spells the bounds for the message ("0 and 1").
    double number(const char* key, double fallback, double lo, double hi, const char* range) const {
        const auto* value = find(key);
        if (value == nullptr) {
            return fallback;
        }
        if (!value->is_number() || !(value->get<double>() >= lo) || value->get<double>() > hi) {
            bad_field(path(key), std::string("must be a number between ") + range);
        }
        return value->get<double>();
    }

    bool boolean(const char* key, bool fallback) const {
        const auto* value = find(key);
        if (value == nullptr) {
            return fallback;
        }
        if (!value->is_boolean()) {
            bad_field(path(key), "must be true or false");
        }
        return value->get<bool>();
    }

    // One of the names in `names` from index `first` on (earlier values are not a scenario's to ask for).
    template <typename Enum, std::size_t N>
    Enum choice(const char* key, Enum fallback, const EnumNames<Enum, N>& names,
                std::size_t first = 0) const {
        return choice_by(
            key, fallback,
            [&](std::string_view text) {
                const auto parsed = names.parse(text);
                return parsed && static_cast<std::size_t>(*parsed) >= first ? parsed : std::nullopt;
            },
            [&] { return names.choices(first); });
    }

    template <typename Enum, typename Parse, typename Choices>
    Enum choice_by(const char* key, Enum fallback, Parse&& parse, Choices&& choices) const {
        const auto* value = find(key);
        if (value == nullptr) {
            return fallback;
        }
        const std::optional<Enum> parsed =
            value->is_string() ? parse(value->get<std::string>()) : std::nullopt;
        if (!parsed) {
            bad_field(path(key), "must be one of: " + choices());
        }
        return *parsed;
    }

    const json* find(const char* key) const {
        const auto found = object_.find(key);
        return found == object_.end() ? nullptr : &*found;
    }
    std::string path(const char* key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

    void reject_unknown(std::initializer_list<std::string_view> known) const {
        for (const auto& [key, value] : object_.items()) {
            if (std::find(known.begin(), known.end(), key) == known.end()) {
                bad_field(prefix_.empty() ? key : prefix_ + "." + key, "unknown field");
            }
        }
    }

  private:
    const json& object_;
    std::string prefix_;
};

}  // namespace ckpt::sim::scenario_json
