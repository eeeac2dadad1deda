// LogHistory's text: each entry dumped as save_to_json dumps an element of a top-level member's
// list (indent 2, two levels deep), and the document split around an empty list dumped in its
// place, so the bytes are trainer_state_text's for the whole state.
#include "sim/trainer/log_history.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "sim/base/json_text.hpp"
#include "sim/trainer/trainer_state_file.hpp"

namespace ckpt::sim::transformers {
namespace {

constexpr std::string_view kEmptyList = "\n  \"log_history\": []";
constexpr std::string_view kEntryIndent = "    ";

}  // namespace

void LogHistory::append(std::initializer_list<Metric> logs, double epoch, std::int64_t step) {
    // dump() writes an object's members in name order: the logs, "epoch" and "step" sorted, the
    // step an integer and the rest numbers. Written in place, at the list's indentation.
    struct Member {
        std::string_view name;
        double value = 0.0;
        bool is_step = false;
    };
    constexpr std::size_t kMaxLogs = 8;
    std::array<Member, kMaxLogs + 2> members{};
    std::size_t count = 0;
    const auto insert = [&](Member member) {
        if (count == members.size()) {
            throw std::invalid_argument("LogHistory: more than 8 logs in one entry");
        }
        std::size_t at = count++;
        for (; at > 0 && member.name < members[at - 1].name; --at) {
            members[at] = members[at - 1];
        }
        members[at] = member;
    };
    insert({"epoch", epoch, false});
    insert({"step", 0.0, true});
    for (const auto& metric : logs) {
        insert({metric.name, metric.value, false});
    }
    auto& text = *text_;
    text.append(!text_->empty() ? ",\n    {" : "    {");
    for (std::size_t i = 0; i < count; ++i) {
        text.append("\n      \"").append(members[i].name).append("\": ");
        if (members[i].is_step) {
            append_json_integer(text, step);
        } else if (!std::isfinite(members[i].value)) {
            append_python_constant(text, members[i].value);
        } else {
            append_json_number(text, members[i].value);
        }
        if (i + 1 < count) {
            text += ',';
        }
    }
    text.append("\n    }");
}

void LogHistory::append_dumped(std::string_view dumped) {
    auto& text = *text_;
    text.reserve(text.size() + dumped.size() + 16);
    if (!text_->empty()) {
        text += ",\n";
    }
    text += kEntryIndent;
    for (const char c : dumped) {
        text += c;
        if (c == '\n') {
            text += kEntryIndent;
        }
    }
}

void LogHistory::restore(const nlohmann::json& entries) {
    text_ = std::make_shared<std::string>();
    if (!entries.is_array()) {
        return;
    }
    for (const auto& entry : entries) {
        append_dumped(dump_indented_json(entry, 2, /*ensure_ascii=*/true, NonFinite::python_constants));
    }
}

void LogHistory::restore_text(std::string_view entries) {
    text_ = std::make_shared<std::string>(entries);  // a buffer of its own: the old one grew on
}

FileBytes LogHistory::document(nlohmann::json& state) const {
    auto& members = state.get_ref<nlohmann::json::object_t&>();
    members.emplace("log_history", nlohmann::json::array());
    std::string text;
    try {
        text = trainer_state_text(state);
    } catch (...) {
        members.erase("log_history");
        throw;
    }
    members.erase("log_history");
    if (text_->empty()) {
        return FileBytes(std::move(text));
    }
    // Member names are escaped and values hold no raw newline, so the empty list at the top
    // level's indentation is found once, at the member itself.
    const auto at = text.find(kEmptyList);
    const auto opening = at + kEmptyList.size() - 1;  // the ']' of "[]"
    auto head = std::make_shared<const std::string>(text.substr(0, opening) + "\n");
    auto tail = std::make_shared<const std::string>("\n  " + text.substr(opening));
    return FileBytes{{head, head->size()}, {text_, text_->size()}, {tail, tail->size()}};
}

}  // namespace ckpt::sim::transformers
