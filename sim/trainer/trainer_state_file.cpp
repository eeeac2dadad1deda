// save_to_json and load_from_json, through nlohmann (Python's json module in Transformers); the
// text is dump()'s own bytes, written by sim/base/json_text.hpp without nlohmann's serializer.
#include "sim/trainer/trainer_state_file.hpp"

#include "sim/base/json_text.hpp"

namespace ckpt::sim::transformers {

std::string trainer_state_text(const nlohmann::json& state) {
    auto text = dump_indented_json(state, 2, /*ensure_ascii=*/true);
    text += '\n';
    return text;
}

nlohmann::json load_trainer_state(std::string_view text) {
    return nlohmann::json::parse(text);
}

}  // namespace ckpt::sim::transformers
