// save_to_json and load_from_json, through nlohmann (Python's json module in Transformers): the
// text is dump()'s own bytes and the tree parse()'s own, written and read by sim/base without
// nlohmann's serializer and lexer for the simple texts the simulator writes.
#include "sim/trainer/trainer_state_file.hpp"

#include "sim/base/json_text.hpp"
#include "sim/base/json_tree_reader.hpp"

namespace ckpt::sim::transformers {

std::string trainer_state_text(const nlohmann::json& state) {
    auto text = dump_indented_json(state, 2, /*ensure_ascii=*/true);
    text += '\n';
    return text;
}

nlohmann::json load_trainer_state(std::string_view text) {
    return parse_json_text(text);
}

}  // namespace ckpt::sim::transformers
