#pragma once

// Two JSON trees equal as trees and as types at every node, for the tests that hold a JSON fast
// path to nlohmann: json's operator== calls 5u and 5 equal, and two NaNs or discarded values
// unequal; here doubles compare bit for bit.

#include <cstddef>
#include <cstring>

#include <nlohmann/json.hpp>

namespace ckpt::test {

inline bool same_json_tree(const nlohmann::json& a, const nlohmann::json& b) {
    if (a.type() != b.type()) {
        return false;
    }
    if (a.is_discarded()) {
        return true;  // json's operator== calls two discarded values unequal
    }
    switch (a.type()) {
        case nlohmann::json::value_t::object: {
            if (a.size() != b.size()) {
                return false;
            }
            for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
                if (ia.key() != ib.key() || !same_json_tree(*ia, *ib)) {
                    return false;
                }
            }
            return true;
        }
        case nlohmann::json::value_t::array: {
            if (a.size() != b.size()) {
                return false;
            }
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (!same_json_tree(a[i], b[i])) {
                    return false;
                }
            }
            return true;
        }
        case nlohmann::json::value_t::number_float: {
            const double x = a.get<double>();
            const double y = b.get<double>();
            return std::memcmp(&x, &y, sizeof x) == 0;
        }
        default:
            return a == b;
    }
}

}  // namespace ckpt::test
