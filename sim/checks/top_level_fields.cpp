// The named members located by the validating scanner (json_scanner.hpp) and each parsed on its
// own by nlohmann: a member's text is a valid document, so it gives the value the DOM parse
// would (same numbers, strings and duplicate-key rule) at the cost of that member alone.
#include "sim/checks/top_level_fields.hpp"

#include <algorithm>
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

// A member's value as `Read` keeps it: parsed, or its text.
template <typename Read>
Read member_as(std::string_view text) {
    if constexpr (std::is_same_v<Read, nlohmann::json>) {
        return parse_member_value(text);
    } else {
        return std::string(text);
    }
}

// scan_json of `text` for `names`, each found member kept as `Read`. Nothing for a text that is
// not an object.
template <typename Read>
std::optional<std::map<std::string, Read, std::less<>>> scan_fields(
    std::string_view text, std::initializer_list<std::string_view> names) {
    constexpr std::size_t kInline = 8;
    std::array<std::string_view, kInline> inline_values;
    std::vector<std::string_view> many_values(names.size() > kInline ? names.size() : 0);
    const std::span<std::string_view> values =
        names.size() > kInline ? std::span<std::string_view>(many_values)
                               : std::span<std::string_view>(inline_values.data(), names.size());
    if (scan_json(text, std::span<const std::string_view>(names.begin(), names.size()), values) !=
        JsonShape::object) {
        return std::nullopt;
    }
    std::map<std::string, Read, std::less<>> fields;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!values[i].empty()) {
            fields.emplace(std::string(names.begin()[i]), member_as<Read>(values[i]));
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

// The checkers' memory of whole documents: for the last few texts read as runs, every top-level
// member as the scan found them. A file's runs never change below their lengths (FileBytes), so
// the same buffers and lengths are the same bytes, and a document read again (by another checker,
// or at a resume from it) is not scanned again. Each entry holds its runs' buffers, so a new
// buffer at a freed one's address can never match it.
class ScannedDocuments {
  public:
    struct Document {
        bool scanned = false;
        FileBytes bytes;
        std::string text;  // what the members view: the run's copy, the runs joined, or a skeleton
        std::optional<std::vector<JsonMember>> members;  // nothing when it is not a valid object
        std::size_t placeholder = std::string::npos;     // where a skeleton's "{}" stands for a run

        // Whether `value` (a member's) holds the placeholder, and so is not the member's text.
        bool stands_in(std::string_view value) const noexcept {
            const auto at = static_cast<std::size_t>(value.data() - text.data());
            return placeholder != std::string::npos && at <= placeholder && placeholder < at + value.size();
        }
    };

    // Every top-level member of `bytes`, as scanned now or remembered; valid until the entry is
    // reused, eight documents later.
    const Document& members_of(const FileBytes& bytes) {
        for (const auto& document : documents_) {
            if (document.scanned && same_runs(document.bytes, bytes)) {
                return document;
            }
        }
        Document& document = documents_[next_++ % documents_.size()];
        document.scanned = true;
        document.bytes = bytes;
        document.text.clear();
        document.placeholder = std::string::npos;
        document.members = scan(bytes, document.text, document.placeholder);
        return document;
    }

  private:
    static bool same_runs(const FileBytes& a, const FileBytes& b) noexcept {
        return a.run_count() == b.run_count() &&
               std::equal(a.begin(), a.end(), b.begin(),
                          [](const FileBytes::Run& x, const FileBytes::Run& y) {
                              return x.buffer == y.buffer && x.length == y.length;
                          });
    }

    // The members, scanned over a copy of one run (a buffer its owner appends to may move, so its
    // members cannot be viewed in place), else over the runs with a list of array elements
    // already checked standing as one element (or, if no element sits there, over them joined).
    std::optional<std::vector<JsonMember>> scan(const FileBytes& bytes, std::string& text,
                                                std::size_t& placeholder) {
        if (bytes.run_count() <= 1) {
            text = bytes.str();
            return top_level_members(text);
        }
        std::size_t element = std::string::npos;
        for (const auto& run : bytes) {
            if (element == std::string::npos && run.length >= kKnownRunBytes && known_.holds(run)) {
                element = text.size();
                text.append("{}");  // delimits itself, as the run's own ends do
            } else {
                text.append(run.view());
            }
        }
        if (element != std::string::npos) {
            bool element_there = false;
            auto members = top_level_members(text, element, element_there);
            if (element_there) {
                placeholder = element;
                return members;
            }
        }
        text = bytes.str();
        return top_level_members(text);
    }

    KnownElementLists known_;
    std::array<Document, 8> documents_{};
    std::size_t next_ = 0;
};

// This thread's memory of scanned documents, one for every reader: a document one checker read
// as parsed members is not scanned again for another that reads its members' texts.
ScannedDocuments& scanned_documents() {
    thread_local ScannedDocuments scanned;
    return scanned;
}

// read_top_level_fields of runs, each member kept as `Read` builds it from its text; the last of
// a repeated name wins, as in a parsed object.
template <typename Read>
std::optional<std::map<std::string, Read, std::less<>>> read_runs(
    const FileBytes& text, std::initializer_list<std::string_view> names) {
    const auto& document = scanned_documents().members_of(text);
    if (!document.members) {
        return std::nullopt;
    }
    const auto& members = *document.members;
    std::map<std::string, Read, std::less<>> fields;
    for (const auto name : names) {
        const auto last = std::find_if(members.rbegin(), members.rend(),
                                       [&](const JsonMember& member) { return member.name == name; });
        if (last == members.rend() || fields.contains(name)) {
            continue;
        }
        if (document.stands_in(last->value)) {  // the member holding the shared run: read it joined
            return scan_fields<Read>(text.str(), names);
        }
        fields.emplace(std::string(name), member_as<Read>(last->value));
    }
    return fields;
}

}  // namespace

std::optional<Fields> read_top_level_fields(std::string_view text,
                                            std::initializer_list<std::string_view> names) {
    return scan_fields<nlohmann::json>(text, names);
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
