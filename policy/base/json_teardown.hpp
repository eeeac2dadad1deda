// Frees a JSON tree bottom-up, for the trees made and dropped on every evaluation and resume.
// Header-only; depends only on nlohmann/json.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace ckpt {

// Empties `tree`'s containers from the leaves up, leaving it an empty object or array (other
// values are left as they are). nlohmann's destructor instead moves every value of a tree onto a
// heap stack and destroys each twice, which costs more than the frees themselves on the few
// dozen values of a round's payload or a callback export. Below kMaxDepth levels the rest is
// left to that destructor, so any tree, however deep, costs no deep native recursion.
inline void tear_down(nlohmann::json& tree, std::size_t depth = 0) noexcept {
    constexpr std::size_t kMaxDepth = 32;
    const auto empty_below = [depth](nlohmann::json& child) {
        if (child.is_structured() && depth + 1 < kMaxDepth) {
            tear_down(child, depth + 1);
        }
    };
    if (tree.is_object()) {
        auto& members = tree.get_ref<nlohmann::json::object_t&>();
        for (auto& member : members) {
            empty_below(member.second);
        }
        members.clear();
    } else if (tree.is_array()) {
        auto& items = tree.get_ref<nlohmann::json::array_t&>();
        for (auto& item : items) {
            empty_below(item);
        }
        items.clear();
    }
}

}  // namespace ckpt
