// Several members of a JSON object found in one pass, for the payloads read on every
// evaluation. Header-only; depends only on nlohmann/json.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt {

// The members of `object` (which must be an object) named by `names`, or null where it has none.
// nlohmann keeps an object's members in a std::map, in ascending key order; with `names` in that
// order too, one merge of the two finds them all instead of a search per name.
template <std::size_t N>
std::array<const nlohmann::json*, N> find_members(const nlohmann::json& object,
                                                  const std::array<std::string_view, N>& names) {
    std::array<const nlohmann::json*, N> found{};
    std::size_t next = 0;
    for (const auto& [key, value] : object.get_ref<const nlohmann::json::object_t&>()) {
        const std::string_view name = key;
        while (next < N && names[next] < name) {
            ++next;
        }
        if (next == N) {
            break;
        }
        if (names[next] == name) {
            found[next++] = &value;
        }
    }
    return found;
}

}  // namespace ckpt
