#pragma once

// A RapidCheck generator of JSON trees for the tests that hold a JSON fast path to nlohmann:
// every value type (signed, unsigned and finite double numbers, booleans, null), strings of any
// bytes (invalid UTF-8 included) or of printable characters, and arrays and objects nested up to
// `depth` levels.

#include <cmath>
#include <rapidcheck.h>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt::test {

inline rc::Gen<nlohmann::json> gen_json_value(int depth) {
    using nlohmann::json;
    auto scalar = rc::gen::oneOf(
        rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t v) { return json(v); }),
        rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t v) { return json(v); }),
        rc::gen::map(rc::gen::arbitrary<double>(),
                     [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); }),
        rc::gen::map(rc::gen::arbitrary<bool>(), [](bool v) { return json(v); }),
        rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string v) { return json(std::move(v)); }),
        rc::gen::map(rc::gen::string<std::string>(), [](std::string v) { return json(std::move(v)); }));
    if (depth <= 0) {
        return scalar;
    }
    return rc::gen::oneOf(
        scalar,
        rc::gen::map(rc::gen::container<std::vector<json>>(gen_json_value(depth - 1)),
                     [](std::vector<json> items) { return json(std::move(items)); }),
        rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, json>>>(
                         rc::gen::pair(rc::gen::string<std::string>(), gen_json_value(depth - 1))),
                     [](const std::vector<std::pair<std::string, json>>& members) {
                         json object = json::object();
                         for (const auto& [key, value] : members) {
                             object[key] = value;
                         }
                         return object;
                     }));
}

}  // namespace ckpt::test
