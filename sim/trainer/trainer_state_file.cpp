// save_to_json and load_from_json, through nlohmann (Python's json module in Transformers).
#include "sim/trainer/trainer_state_file.hpp"

namespace ckpt::sim::transformers {

std::string trainer_state_text(const nlohmann::json& state) {
    return state.dump(2, ' ', /*ensure_ascii=*/true) + "\n";
}

nlohmann::json load_trainer_state(std::string_view text) {
    return nlohmann::json::parse(text);
}

}  // namespace ckpt::sim::transformers
