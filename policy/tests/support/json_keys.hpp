// The member names of a JSON object in its own order, for tests that pin a document's layout.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt::testing {

inline std::vector<std::string> keys_of(const nlohmann::json& object) {
    std::vector<std::string> keys;
    for (const auto& item : object.items()) {
        keys.push_back(item.key());
    }
    return keys;
}

}  // namespace ckpt::testing
