// save_to_json and load_from_json, through nlohmann (Python's json module in Transformers): the
// text is dump()'s own bytes and the tree parse()'s own, written and read by sim/base without
// nlohmann's serializer and lexer for the simple texts the simulator writes.
#include "sim/trainer/trainer_state_file.hpp"

#include "sim/base/json_text.hpp"
#include "sim/base/json_tree_reader.hpp"

namespace ckpt::sim::transformers {

std::string trainer_state_text(const nlohmann::json& state) {
    auto text = dump_indented_json(state, 2, /*ensure_ascii=*/true, NonFinite::python_constants);
    text += '\n';
    return text;
}

nlohmann::json load_trainer_state(std::string_view text) {
    return parse_json_text(text);
}

LoadedTrainerState load_trainer_state(const FileBytes& bytes) {
    constexpr std::string_view kListOpened = "\"log_history\": [\n";
    constexpr std::string_view kListClosed = "\n  ]";
    if (bytes.run_count() == 3) {
        const auto head = bytes.begin()[0].view();
        const auto tail = bytes.begin()[2].view();
        if (head.ends_with(kListOpened) && tail.starts_with(kListClosed)) {
            std::string without_entries(head.substr(0, head.size() - 1));  // up to the '['
            without_entries.append(tail.substr(kListClosed.size() - 1));   // from the ']'
            auto state = parse_json_text(without_entries);
            state.erase("log_history");
            return {std::move(state), bytes.begin()[1]};
        }
    }
    return {parse_json_text(bytes.str()), std::nullopt};
}

}  // namespace ckpt::sim::transformers
