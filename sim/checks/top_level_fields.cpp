// The named members located by the validating scanner (json_scanner.hpp) and each parsed on its
// own by nlohmann: a member's text is a valid document, so it gives the value the DOM parse
// would (same numbers, strings and duplicate-key rule) at the cost of that member alone.
#include "sim/checks/top_level_fields.hpp"

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/base/json_tree_reader.hpp"
#include "sim/checks/json_scanner.hpp"

namespace ckpt::sim {

namespace {

// The integer a plain integer lexeme stands for, in the type nlohmann's lexer gives it; nothing
// for a lexeme with a fraction or an exponent, or one that overflows (the lexer reads a double).
template <typename Integer>
std::optional<nlohmann::json> integer_value(std::string_view text) {
    Integer value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return nlohmann::json(value);
}

}  // namespace

nlohmann::json parse_member_value(std::string_view text) {
    if (text == "true" || text == "false") {
        return nlohmann::json(text == "true");
    }
    if (text == "null") {
        return nlohmann::json(nullptr);
    }
    if (text.size() >= 2 && text.front() == '"' && text.find('\\') == std::string_view::npos) {
        return nlohmann::json(std::string(text.substr(1, text.size() - 2)));
    }
    if (!text.empty() && text.front() == '-') {
        if (auto value = integer_value<std::int64_t>(text)) {
            return std::move(*value);
        }
    } else if (auto value = integer_value<std::uint64_t>(text)) {
        return std::move(*value);
    }
    // The lexer reads any other number with strtod; from_chars rounds correctly too, so where it
    // reads the whole lexeme without a range error both give the same double.
    if (!text.empty() && (text.front() == '-' || (text.front() >= '0' && text.front() <= '9'))) {
        double value = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc() && end == text.data() + text.size()) {
            return nlohmann::json(value);
        }
    }
    return parse_json_text(text);  // an object or an array: the simulator's texts, without nlohmann's lexer
}

namespace {

using Fields = std::map<std::string, nlohmann::json, std::less<>>;
using Texts = std::map<std::string, std::string, std::less<>>;

// scan_json of `text` for `names`, each found member kept as `Read` builds it from its text (a
// parsed value, or the text itself); `watched` as scan_json's. Nothing for a text that is not an
// object.
template <typename Read>
std::optional<std::map<std::string, Read, std::less<>>> scan_fields(
    std::string_view text, std::initializer_list<std::string_view> names, std::size_t watched,
    bool& element_at_watched) {
    constexpr std::size_t kInline = 8;
    std::array<std::string_view, kInline> inline_values;
    std::vector<std::string_view> many_values(names.size() > kInline ? names.size() : 0);
    const std::span<std::string_view> values =
        names.size() > kInline ? std::span<std::string_view>(many_values)
                               : std::span<std::string_view>(inline_values.data(), names.size());
    if (scan_json(text, std::span<const std::string_view>(names.begin(), names.size()), values, watched,
                  element_at_watched) != JsonShape::object) {
        return std::nullopt;
    }
    std::map<std::string, Read, std::less<>> fields;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (values[i].empty()) {
            continue;
        }
        if constexpr (std::is_same_v<Read, nlohmann::json>) {
            fields.emplace(std::string(names.begin()[i]), parse_member_value(values[i]));
        } else {
            fields.emplace(std::string(names.begin()[i]), std::string(values[i]));
        }
    }
    return fields;
}

// The checkers' own memory of shared runs: for a few buffers, how far their bytes are known to
// be a list of array elements. Held weakly, so a freed buffer's entry matches nothing.
class KnownElementLists {
  public:
    // Whether the run is a list of array elements whose ends delimit themselves ('{', '[' or '"'
    // first, '}', ']' or '"' last), checking only the bytes after what an earlier call saw.
    bool holds(const FileBytes::Run& run) {
        const std::string_view bytes = run.view();
        const auto first = bytes.find_first_not_of(kWhitespace);
        if (first == std::string_view::npos ||
            std::string_view("{[\"").find(bytes[first]) == std::string_view::npos ||
            std::string_view("}]\"").find(bytes[bytes.find_last_not_of(kWhitespace)]) ==
                std::string_view::npos) {
            return false;
        }
        Known* known = nullptr;
        for (auto& entry : known_) {
            if (entry.seen != 0 && !entry.buffer.owner_before(run.buffer) &&
                !run.buffer.owner_before(entry.buffer)) {
                known = &entry;
            }
        }
        std::string_view unchecked = bytes;
        if (known != nullptr && known->length <= run.length) {
            unchecked = bytes.substr(known->length);
            const auto comma = unchecked.find_first_not_of(kWhitespace);
            if (comma != std::string_view::npos &&
                (unchecked[comma] != ',' || !is_element_list(unchecked.substr(comma + 1)))) {
                return false;
            }
        } else if (!is_element_list(bytes)) {
            return false;
        }
        if (known == nullptr) {
            known = &known_[next_++ % known_.size()];
            known->buffer = run.buffer;
        }
        known->length = run.length;
        known->seen = 1;
        return true;
    }

  private:
    static constexpr std::string_view kWhitespace = " \t\n\r";

    static bool is_element_list(std::string_view body) {
        if (body.find_first_not_of(kWhitespace) == std::string_view::npos) {
            return false;
        }
        std::string array = "[";
        array.append(body).append("]");
        bool ignored = false;
        return scan_json(array, {}, {}, std::string_view::npos, ignored) == JsonShape::other;
    }

    struct Known {
        std::weak_ptr<const std::string> buffer;
        std::size_t length = 0;
        int seen = 0;
    };
    std::array<Known, 4> known_{};
    std::size_t next_ = 0;
};

// Runs this short are read in place.
constexpr std::size_t kKnownRunBytes = 256;

}  // namespace

namespace {

// read_top_level_fields of runs, each member kept as `Read`.
template <typename Read>
std::optional<std::map<std::string, Read, std::less<>>> read_runs(
    const FileBytes& text, std::initializer_list<std::string_view> names) {
    bool ignored = false;
    if (text.run_count() <= 1) {
        return scan_fields<Read>(text.empty() ? std::string_view() : text.begin()->view(), names,
                                 std::string_view::npos, ignored);
    }
    thread_local KnownElementLists known;
    std::string skeleton;
    std::size_t element = std::string::npos;
    for (const auto& run : text) {
        if (element == std::string::npos && run.length >= kKnownRunBytes && known.holds(run)) {
            element = skeleton.size();
            skeleton.append("{}");  // delimits itself, as the run's own ends do
        } else {
            skeleton.append(run.view());
        }
    }
    if (element != std::string::npos) {
        bool element_there = false;
        auto fields = scan_fields<Read>(skeleton, names, element, element_there);
        if (element_there) {
            return fields;
        }
    }
    return scan_fields<Read>(text.str(), names, std::string_view::npos, ignored);
}

}  // namespace

std::optional<Fields> read_top_level_fields(std::string_view text,
                                            std::initializer_list<std::string_view> names) {
    bool ignored = false;
    return scan_fields<nlohmann::json>(text, names, std::string_view::npos, ignored);
}

std::optional<Fields> read_top_level_fields(const FileBytes& text,
                                            std::initializer_list<std::string_view> names) {
    return read_runs<nlohmann::json>(text, names);
}

std::optional<Texts> read_top_level_texts(const FileBytes& text,
                                          std::initializer_list<std::string_view> names) {
    return read_runs<std::string>(text, names);
}

}  // namespace ckpt::sim
