// The scanner of json_scanner.hpp: one pass, a loop over three states (a value is due, a member
// name is due, a value just ended) with the nesting kept as bits, so deep documents cost neither
// recursion nor, below 512 levels, an allocation. The structure is nlohmann 3.11's parser
// restated, the lexemes are json_lexemes.hpp's; a member name with escapes (rare) is decoded by
// nlohmann itself.
#include "sim/checks/json_scanner.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/json_lexemes.hpp"

namespace ckpt::sim {
namespace {

// Which containers are open: one bit each (1: object), innermost last.
class Nesting {
  public:
    std::size_t depth() const noexcept { return depth_; }
    bool in_object() const noexcept { return (word(depth_ - 1) >> ((depth_ - 1) % 64)) & 1U; }
    void push(bool object) {
        const std::size_t index = depth_ / 64;
        if (index >= kInline && index - kInline >= deep_.size()) {
            deep_.push_back(0);
        }
        auto& bits = index < kInline ? inline_[index] : deep_[index - kInline];
        const std::uint64_t bit = std::uint64_t{1} << (depth_ % 64);
        bits = object ? (bits | bit) : (bits & ~bit);
        ++depth_;
    }
    void pop() noexcept { --depth_; }

  private:
    static constexpr std::size_t kInline = 8;
    std::uint64_t word(std::size_t level) const noexcept {
        const std::size_t index = level / 64;
        return index < kInline ? inline_[index] : deep_[index - kInline];
    }
    std::array<std::uint64_t, kInline> inline_{};
    std::vector<std::uint64_t> deep_;
    std::size_t depth_ = 0;
};

enum class Next { value, member_name, value_ended, accepted, refused };

class Scanner {
  public:
    Scanner(std::string_view text, std::span<const std::string_view> names,
            std::span<std::string_view> values, std::size_t watched = std::string_view::npos)
        : in_{reinterpret_cast<const unsigned char*>(text.data()),
              reinterpret_cast<const unsigned char*>(text.data()) + text.size()},
          names_(names),
          values_(values),
          watched_(watched < text.size() ? in_.at + watched : nullptr) {}

    bool array_element_at_watched() const noexcept { return array_element_at_watched_; }
    // Every top-level member is listed in `members` as it is scanned.
    void list_members(std::vector<JsonMember>& members) noexcept { members_ = &members; }

    JsonShape run();

  private:
    Next start_value();
    Next member_name();
    Next value_ended();
    int name_index(std::string_view quoted) const;
    static bool decode_name(std::string_view quoted, std::string& decoded);

    JsonCursor in_;
    std::span<const std::string_view> names_;
    std::span<std::string_view> values_;
    Nesting nesting_;
    int picking_ = -1;  // the index of the name whose value is being scanned at depth 1
    std::vector<JsonMember>* members_ = nullptr;
    const unsigned char* value_begin_ = nullptr;
    const unsigned char* watched_;
    bool array_element_at_watched_ = false;
};

JsonShape Scanner::run() {
    if (in_.peek() == 0xEF) {  // nlohmann skips a UTF-8 byte order mark, and only a whole one
        if (in_.end - in_.at < 3 || in_.at[1] != 0xBB || in_.at[2] != 0xBF) {
            return JsonShape::invalid;
        }
        in_.at += 3;
    }
    in_.skip_whitespace();
    const bool object = in_.peek() == '{';
    Next next = Next::value;
    while (next != Next::accepted && next != Next::refused) {
        switch (next) {
            case Next::value:
                next = start_value();
                break;
            case Next::member_name:
                next = member_name();
                break;
            default:
                next = value_ended();
                break;
        }
    }
    if (next == Next::refused) {
        return JsonShape::invalid;
    }
    return object ? JsonShape::object : JsonShape::other;
}

Next Scanner::start_value() {
    in_.skip_whitespace();
    if (in_.at == watched_) {
        array_element_at_watched_ = nesting_.depth() > 0 && !nesting_.in_object();
    }
    switch (in_.peek()) {
        case '{':
        case '[': {
            const bool object = *in_.at == '{';
            ++in_.at;
            nesting_.push(object);
            in_.skip_whitespace();
            if (in_.peek() == (object ? '}' : ']')) {
                ++in_.at;
                nesting_.pop();
                return Next::value_ended;
            }
            return object ? Next::member_name : Next::value;
        }
        case '"':
            return in_.string() ? Next::value_ended : Next::refused;
        case 't':
            return in_.literal("true") ? Next::value_ended : Next::refused;
        case 'f':
            return in_.literal("false") ? Next::value_ended : Next::refused;
        case 'n':
            return in_.literal("null") ? Next::value_ended : Next::refused;
        case 'N':
            return in_.literal("NaN") ? Next::value_ended : Next::refused;
        case 'I':
            return in_.literal("Infinity") ? Next::value_ended : Next::refused;
        case '-':
            if (in_.end - in_.at > 1 && in_.at[1] == 'I') {
                return in_.literal("-Infinity") ? Next::value_ended : Next::refused;
            }
            [[fallthrough]];
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
            return in_.number() ? Next::value_ended : Next::refused;
        default:
            return Next::refused;
    }
}

// At a member's name, whitespace already skipped.
Next Scanner::member_name() {
    const unsigned char* begin = in_.at;
    if (in_.peek() != '"' || !in_.string()) {
        return Next::refused;
    }
    const auto quoted =
        std::string_view(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(in_.at - begin));
    in_.skip_whitespace();
    if (in_.peek() != ':') {
        return Next::refused;
    }
    ++in_.at;
    in_.skip_whitespace();
    if (nesting_.depth() == 1) {
        if (members_ != nullptr) {
            members_->emplace_back();
            if (!decode_name(quoted, members_->back().name)) {
                return Next::refused;
            }
        }
        picking_ = name_index(quoted);
        value_begin_ = in_.at;
    }
    return Next::value;
}

Next Scanner::value_ended() {
    if (nesting_.depth() == 1 && (picking_ >= 0 || members_ != nullptr)) {
        const auto value = std::string_view(reinterpret_cast<const char*>(value_begin_),
                                            static_cast<std::size_t>(in_.at - value_begin_));
        if (picking_ >= 0) {
            values_[static_cast<std::size_t>(picking_)] = value;
        }
        if (members_ != nullptr && nesting_.in_object()) {  // a top-level array has no members
            members_->back().value = value;
        }
        picking_ = -1;
    }
    in_.skip_whitespace();
    if (nesting_.depth() == 0) {
        return in_.at == in_.end ? Next::accepted : Next::refused;  // a NUL byte too: json.loads refuses it
    }
    const bool object = nesting_.in_object();
    if (in_.peek() == ',') {
        ++in_.at;
        in_.skip_whitespace();
        return object ? Next::member_name : Next::value;
    }
    if (in_.peek() == (object ? '}' : ']')) {
        ++in_.at;
        nesting_.pop();
        return Next::value_ended;
    }
    return Next::refused;
}

// The name a valid quoted member name decodes to; false only if nlohmann refuses it.
bool Scanner::decode_name(std::string_view quoted, std::string& decoded) {
    const std::string_view raw = quoted.substr(1, quoted.size() - 2);
    if (raw.find('\\') == std::string_view::npos) {
        decoded.assign(raw);
        return true;
    }
    const auto parsed = nlohmann::json::parse(quoted, nullptr, false);  // rare: nlohmann decodes escapes
    if (!parsed.is_string()) {
        return false;
    }
    decoded = parsed.get<std::string>();
    return true;
}

// Which of the names a quoted member name decodes to; -1 for none.
int Scanner::name_index(std::string_view quoted) const {
    if (names_.empty()) {
        return -1;
    }
    const std::string_view raw = quoted.substr(1, quoted.size() - 2);
    std::string decoded;
    std::string_view name = raw;
    if (raw.find('\\') != std::string_view::npos) {
        if (!decode_name(quoted, decoded)) {
            return -1;
        }
        name = decoded;
    }
    for (std::size_t i = 0; i < names_.size(); ++i) {
        if (names_[i] == name) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

}  // namespace

std::optional<std::vector<JsonMember>> top_level_members(std::string_view text) {
    bool ignored = false;
    return top_level_members(text, std::string_view::npos, ignored);
}

std::optional<std::vector<JsonMember>> top_level_members(std::string_view text, std::size_t watched,
                                                         bool& array_element_at_watched) {
    std::vector<JsonMember> members;
    Scanner scanner(text, {}, {}, watched);
    scanner.list_members(members);
    const JsonShape shape = scanner.run();
    array_element_at_watched = scanner.array_element_at_watched();
    if (shape != JsonShape::object) {
        return std::nullopt;
    }
    return members;
}

JsonShape scan_json(std::string_view text, std::span<const std::string_view> names,
                    std::span<std::string_view> values) {
    bool ignored = false;
    return scan_json(text, names, values, std::string_view::npos, ignored);
}

JsonShape scan_json(std::string_view text, std::span<const std::string_view> names,
                    std::span<std::string_view> values, std::size_t watched, bool& array_element_at_watched) {
    for (auto& value : values) {
        value = {};
    }
    Scanner scanner(text, names, values, watched);
    const JsonShape shape = scanner.run();
    if (shape != JsonShape::object) {
        for (auto& value : values) {
            value = {};
        }
    }
    array_element_at_watched = scanner.array_element_at_watched();
    return shape;
}

}  // namespace ckpt::sim
