// json_tree_reader.hpp: one pass of recursive descent that gives up (returns false) at the first
// byte outside the simple subset, so whether a text is valid, and every error, stay nlohmann's.
// Python's constants reach nlohmann as number tokens of their own, told apart by their text.
#include "sim/base/json_tree_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "policy/base/byte_words.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

// Integers of more digits may leave int64/uint64 (nlohmann then makes a double): declined.
constexpr std::size_t kMostIntegerDigits = 18;

constexpr bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

class SimpleJsonReader {
  public:
    SimpleJsonReader(std::string_view text, JsonDialect dialect) noexcept
        : next_(text.data()), end_(text.data() + text.size()), python_(dialect == JsonDialect::python) {}

    bool read_document(json& out) {
        skip_blanks();
        if (!read_value(out, 0)) {
            return false;
        }
        skip_blanks();
        return next_ == end_;
    }

  private:
    // JSON's whitespace (nlohmann's too): space, tab, newline, carriage return.
    // Indentation comes in runs of spaces, taken eight at a time.
    void skip_blanks() noexcept {
        constexpr std::uint64_t kEightSpaces = byte_words::kOnes * static_cast<unsigned char>(' ');
        while (next_ != end_) {
            if (end_ - next_ >= 8 && byte_words::load(next_) == kEightSpaces) {
                next_ += 8;
                continue;
            }
            const char c = *next_;
            if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
                return;
            }
            ++next_;
        }
    }

    bool take(char expected) noexcept {
        skip_blanks();
        if (next_ == end_ || *next_ != expected) {
            return false;
        }
        ++next_;
        return true;
    }

    bool take_word(std::string_view word) noexcept {
        if (static_cast<std::size_t>(end_ - next_) < word.size() ||
            std::string_view(next_, word.size()) != word) {
            return false;
        }
        next_ += word.size();
        return true;
    }

    bool read_value(json& out, std::size_t depth) {
        if (next_ == end_) {
            return false;
        }
        const char first = *next_;
        if (first == '{' || first == '[') {
            return depth < kSimpleJsonDepth &&
                   (first == '{' ? read_members(out, depth + 1) : read_items(out, depth + 1));
        }
        if (first == '"') {
            std::string_view text;
            if (!read_string(text)) {
                return false;
            }
            out = std::string(text);
            return true;
        }
        if (first == 't' || first == 'f' || first == 'n') {
            if (take_word("true")) {
                out = true;
            } else if (take_word("false")) {
                out = false;
            } else if (take_word("null")) {
                out = nullptr;
            } else {
                return false;
            }
            return true;
        }
        if (python_ &&
            (first == 'N' || first == 'I' || (first == '-' && end_ - next_ > 1 && next_[1] == 'I'))) {
            return read_python_constant(out);
        }
        return read_number(out);
    }

    // json.loads's NaN, Infinity and -Infinity.
    bool read_python_constant(json& out) noexcept {
        if (take_word("NaN")) {
            out = kNan;
        } else if (take_word("Infinity")) {
            out = kInfinity;
        } else if (take_word("-Infinity")) {
            out = -kInfinity;
        } else {
            return false;
        }
        return true;
    }

    // A string of printable ASCII with no escape, its bytes as they stand between the quotes.
    bool read_string(std::string_view& text) noexcept {
        const char* start = ++next_;
        while (end_ - next_ >= 8 && byte_words::all_plain_json(byte_words::load(next_))) {
            next_ += 8;
        }
        while (next_ != end_) {
            const char c = *next_;
            if (c == '"') {
                text = std::string_view(start, static_cast<std::size_t>(next_ - start));
                ++next_;
                return true;
            }
            if (c < 0x20 || c > 0x7e || c == '\\') {
                return false;
            }
            ++next_;
        }
        return false;
    }

    bool read_members(json& out, std::size_t depth) {
        out = json::object();
        auto& members = out.get_ref<json::object_t&>();
        return read_sequence('}', [this, depth, &members] {
            std::string_view key;
            json member;
            if (next_ == end_ || *next_ != '"' || !read_string(key) || !take(':')) {
                return false;
            }
            skip_blanks();
            if (!read_value(member, depth)) {
                return false;
            }
            if (members.empty() || std::prev(members.end())->first < key) {
                members.emplace_hint(members.end(), std::string(key), std::move(member));  // keys in order
            } else {
                members[std::string(key)] = std::move(member);  // nlohmann keeps the last of equal keys
            }
            return true;
        });
    }

    bool read_items(json& out, std::size_t depth) {
        out = json::array();
        auto& items = out.get_ref<json::array_t&>();
        return read_sequence(']', [this, depth, &items] { return read_value(items.emplace_back(), depth); });
    }

    // The opening bracket, then items read by `read_item` (at their first byte) between commas,
    // then `close`.
    template <typename ReadItem>
    bool read_sequence(char close, const ReadItem& read_item) {
        ++next_;
        if (take(close)) {
            return true;
        }
        do {
            skip_blanks();
            if (!read_item()) {
                return false;
            }
        } while (take(','));
        return take(close);
    }

    // JSON's number grammar; the token's value and type as nlohmann's lexer would give them.
    bool read_number(json& out) {
        const char* start = next_;
        const bool negative = next_ != end_ && *next_ == '-';
        next_ += negative ? 1 : 0;
        const char* digits = next_;
        while (next_ != end_ && is_digit(*next_)) {
            ++next_;
        }
        const auto whole_digits = static_cast<std::size_t>(next_ - digits);
        if (whole_digits == 0 || (*digits == '0' && whole_digits > 1)) {
            return false;
        }
        bool fractional = false;
        if (next_ != end_ && *next_ == '.') {
            fractional = true;
            if (!skip_digits(++next_)) {
                return false;
            }
        }
        if (next_ != end_ && (*next_ == 'e' || *next_ == 'E')) {
            fractional = true;
            ++next_;
            if (next_ != end_ && (*next_ == '+' || *next_ == '-')) {
                ++next_;
            }
            if (!skip_digits(next_)) {
                return false;
            }
        }
        if (fractional) {
            double value = 0.0;
            const auto [stop, error] = std::from_chars(start, next_, value);
            if (error != std::errc() || stop != next_ || !std::isfinite(value)) {
                return false;  // overflow and underflow stay nlohmann's to decide
            }
            out = value;
            return true;
        }
        if (whole_digits > kMostIntegerDigits) {
            return false;
        }
        if (negative) {
            std::int64_t value = 0;
            std::from_chars(start, next_, value);
            out = value;
        } else {
            std::uint64_t value = 0;
            std::from_chars(start, next_, value);
            out = value;
        }
        return true;
    }

    bool skip_digits(const char*& at) const noexcept {
        const char* from = at;
        while (at != end_ && is_digit(*at)) {
            ++at;
        }
        return at != from;
    }

    const char* next_;
    const char* end_;
    bool python_;
};

// Number tokens that stand for Python's constants in the text handed to nlohmann: zeros with an
// exponent no writer produces, read as 0.0 and told apart by their text. Each is written between
// spaces, so that it joins no neighbouring token: "1NaN" or "NaN5", which json.loads refuses, stay
// two values in a row, which nlohmann refuses.
constexpr std::string_view kStandInMark = "0e-7700000000000000000";
constexpr std::string_view kNanStandIn = " 0e-77000000000000000001 ";
constexpr std::string_view kInfinityStandIn = " 0e-77000000000000000002 ";
constexpr std::string_view kNegativeInfinityStandIn = " 0e-77000000000000000003 ";

// nlohmann's DOM builder, reading the stand-ins back as the constants they replaced.
class PythonConstantsDomBuilder : public nlohmann::detail::json_sax_dom_parser<json> {
  public:
    using json_sax_dom_parser::json_sax_dom_parser;

    bool number_float(double value, const std::string& token) {
        if (token.size() == kNanStandIn.size() - 2 && token.starts_with(kStandInMark)) {
            const char kind = token.back();
            value = kind == '1' ? kNan : kind == '2' ? kInfinity : -kInfinity;
        }
        return json_sax_dom_parser::number_float(value, token);
    }
};

// `text` with each of Python's constants outside strings replaced by its stand-in; nothing when it
// holds none, or holds a number token that begins as a stand-in does (no writer writes one, and a
// string may hold those digits freely): then nlohmann's rules stand.
std::optional<std::string> with_stand_ins(std::string_view text) {
    std::string out;
    bool in_string = false;
    bool replaced = false;
    for (std::size_t at = 0; at < text.size(); ++at) {
        const char c = text[at];
        if (in_string) {
            if (c == '\\' && at + 1 < text.size()) {
                out += c;
                out += text[++at];
                continue;
            }
            in_string = c != '"';
        } else if (c == '"') {
            in_string = true;
        } else if (text.substr(at).starts_with(kStandInMark)) {
            return std::nullopt;
        } else if (const auto rest = text.substr(at);
                   rest.starts_with("NaN") || rest.starts_with("Infinity") || rest.starts_with("-Infinity")) {
            const bool nan = rest.starts_with("NaN");
            const bool negative = rest.front() == '-';
            out += nan ? kNanStandIn : negative ? kNegativeInfinityStandIn : kInfinityStandIn;
            at += (nan ? 3 : negative ? 9 : 8) - 1;
            replaced = true;
            continue;
        }
        out += c;
    }
    if (!replaced) {
        return std::nullopt;
    }
    return out;
}

// nlohmann's parse of a text the simple reader declined, with a python text's constants; a NUL
// byte anywhere refuses it (a parse_error, or discarded when exceptions are off).
json parse_declined(std::string_view text, JsonDialect dialect, bool allow_exceptions) {
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        if (!allow_exceptions) {
            return json(json::value_t::discarded);
        }
        [[maybe_unused]] const auto parsed = json::parse(text);  // an error before the NUL is nlohmann's
        throw json::parse_error::create(101, nul + 1, "syntax error: a NUL byte, which json.loads refuses",
                                        nullptr);
    }
    if (dialect == JsonDialect::python) {
        if (const auto replaced = with_stand_ins(text)) {
            json value;
            PythonConstantsDomBuilder builder(value, allow_exceptions);
            if (!json::sax_parse(*replaced, &builder)) {
                return json(json::value_t::discarded);
            }
            return value;
        }
    }
    return json::parse(text, nullptr, allow_exceptions);
}

}  // namespace

std::optional<json> read_simple_json(std::string_view text, JsonDialect dialect) {
    json value;
    if (!SimpleJsonReader(text, dialect).read_document(value)) {
        return std::nullopt;
    }
    return value;
}

json parse_json_text(std::string_view text, JsonDialect dialect) {
    if (auto value = read_simple_json(text, dialect)) {
        return std::move(*value);
    }
    return parse_declined(text, dialect, /*allow_exceptions=*/true);
}

json parse_json_text_or_discarded(std::string_view text, JsonDialect dialect) {
    if (auto value = read_simple_json(text, dialect)) {
        return std::move(*value);
    }
    return parse_declined(text, dialect, /*allow_exceptions=*/false);
}

bool json_text_is_valid(std::string_view text, JsonDialect dialect) {
    if (read_simple_json(text, dialect).has_value()) {
        return true;
    }
    if (text.find('\0') != std::string_view::npos) {
        return false;
    }
    if (dialect == JsonDialect::python && with_stand_ins(text)) {
        return !parse_json_text_or_discarded(text, dialect).is_discarded();
    }
    return json::accept(text);
}

}  // namespace ckpt::sim
