// The plain-JSON fast path: a recursive descent over the subset plain_json.hpp states. Every
// branch outside that subset returns "declined" rather than deciding, so validity, error messages
// and the rarer value forms stay nlohmann's.
#include "policy/base/plain_json.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace ckpt {

using nlohmann::json;

namespace {

// Beyond 18 digits an integer may not fit nlohmann's int64/uint64 choice; it declines.
constexpr std::size_t kMaxIntegerDigits = 18;

// The bytes a plain string holds as they are: printable ASCII but the quote and the backslash.
constexpr std::array<bool, 256> kPlainStringByte = [] {
    std::array<bool, 256> plain{};
    for (int byte = 0x20; byte <= 0x7E; ++byte) {
        plain[static_cast<std::size_t>(byte)] = byte != '"' && byte != '\\';
    }
    return plain;
}();

class PlainJsonParser {
  public:
    PlainJsonParser(std::string_view text, PlainDuplicateKeys duplicates)
        : text_(text), duplicates_(duplicates) {}

    std::optional<json> parse_document() {
        json value;
        skip_whitespace();
        if (!parse_value(value, 0)) {
            return std::nullopt;
        }
        skip_whitespace();
        if (at_ != text_.size()) {
            return std::nullopt;
        }
        return value;
    }

  private:
    bool at_end() const noexcept { return at_ >= text_.size(); }
    char peek() const noexcept { return text_[at_]; }

    // nlohmann's whitespace: space, tab, line feed, carriage return.
    void skip_whitespace() noexcept {
        while (!at_end()) {
            const char c = peek();
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            ++at_;
        }
    }

    bool consume(std::string_view literal) noexcept {
        if (text_.substr(at_, literal.size()) != literal) {
            return false;
        }
        at_ += literal.size();
        return true;
    }

    bool parse_value(json& out, std::size_t depth) {
        if (at_end()) {
            return false;
        }
        switch (peek()) {
            case '{':
                return depth < kPlainJsonDepth && parse_object(out, depth + 1);
            case '[':
                return depth < kPlainJsonDepth && parse_array(out, depth + 1);
            case '"': {
                std::string_view text;
                if (!parse_string(text)) {
                    return false;
                }
                out = std::string(text);
                return true;
            }
            case 't':
                out = true;
                return consume("true");
            case 'f':
                out = false;
                return consume("false");
            case 'n':
                out = nullptr;
                return consume("null");
            default:
                return parse_number(out);
        }
    }

    bool parse_object(json& out, std::size_t depth) {
        ++at_;  // '{'
        out = json::object();
        skip_whitespace();
        if (!at_end() && peek() == '}') {
            ++at_;
            return true;
        }
        for (;;) {
            std::string_view key;
            if (at_end() || peek() != '"' || !parse_string(key)) {
                return false;
            }
            skip_whitespace();
            if (at_end() || peek() != ':') {
                return false;
            }
            ++at_;
            skip_whitespace();
            // Find-or-insert, then assignment: a later duplicate key replaces the earlier value, as
            // nlohmann's DOM builder does. The hint is the end: documents are written with sorted
            // keys, so each insertion lands there at no search cost.
            auto& members = out.get_ref<json::object_t&>();
            const auto count = members.size();
            const auto member = members.emplace_hint(members.end(), std::string(key), nullptr);
            if (duplicates_ == PlainDuplicateKeys::decline && members.size() == count) {
                return false;
            }
            bool closed = false;
            if (!parse_value(member->second, depth) || !close_or_continue('}', closed)) {
                return false;
            }
            if (closed) {
                return true;
            }
        }
    }

    bool parse_array(json& out, std::size_t depth) {
        ++at_;  // '['
        out = json::array();
        skip_whitespace();
        if (!at_end() && peek() == ']') {
            ++at_;
            return true;
        }
        for (;;) {
            json element;
            if (!parse_value(element, depth)) {
                return false;
            }
            out.push_back(std::move(element));
            bool closed = false;
            if (!close_or_continue(']', closed)) {
                return false;
            }
            if (closed) {
                return true;
            }
        }
    }

    // After a member or an element: `closer` ends the container (closed), a comma asks for the
    // next one; anything else is not JSON.
    bool close_or_continue(char closer, bool& closed) noexcept {
        skip_whitespace();
        if (at_end()) {
            return false;
        }
        if (peek() == closer) {
            ++at_;
            closed = true;
            return true;
        }
        if (peek() != ',') {
            return false;
        }
        ++at_;
        skip_whitespace();
        return true;
    }

    // Printable ASCII without escapes; a backslash, a control byte or any byte above 0x7E
    // declines (nlohmann decides escapes, UTF-8 and the errors).
    bool parse_string(std::string_view& out) noexcept {
        const std::size_t start = ++at_;  // after '"'
        while (!at_end() && kPlainStringByte[static_cast<unsigned char>(peek())]) {
            ++at_;
        }
        if (at_end() || peek() != '"') {
            return false;
        }
        out = text_.substr(start, at_ - start);
        ++at_;
        return true;
    }

    bool skip_digits() noexcept {
        const std::size_t start = at_;
        while (!at_end() && peek() >= '0' && peek() <= '9') {
            ++at_;
        }
        return at_ > start;
    }

    // RFC 8259's number grammar. Without a fraction or exponent nlohmann stores an integer:
    // number_integer with a minus sign, number_unsigned without; otherwise a double.
    bool parse_number(json& out) {
        const std::size_t start = at_;
        const bool negative = peek() == '-';
        if (negative) {
            ++at_;
        }
        const std::size_t integer_start = at_;
        if (at_end() || !skip_digits()) {
            return false;
        }
        const std::size_t integer_digits = at_ - integer_start;
        if (integer_digits > 1 && text_[integer_start] == '0') {
            return false;  // a leading zero is invalid JSON
        }
        bool is_float = false;
        if (!at_end() && peek() == '.') {
            ++at_;
            if (!skip_digits()) {
                return false;
            }
            is_float = true;
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            ++at_;
            if (!at_end() && (peek() == '+' || peek() == '-')) {
                ++at_;
            }
            if (!skip_digits()) {
                return false;
            }
            is_float = true;
        }
        const char* first = text_.data() + start;
        const char* last = text_.data() + at_;
        if (!is_float) {
            if (integer_digits > kMaxIntegerDigits) {
                return false;
            }
            if (negative) {
                std::int64_t value = 0;
                if (std::from_chars(first, last, value).ec != std::errc{}) {
                    return false;
                }
                out = value;
            } else {
                std::uint64_t value = 0;
                if (std::from_chars(first, last, value).ec != std::errc{}) {
                    return false;
                }
                out = value;
            }
            return true;
        }
        double value = 0.0;
        const auto result = std::from_chars(first, last, value);
        if (result.ec != std::errc{} || result.ptr != last || !std::isfinite(value)) {
            return false;  // overflow and underflow are nlohmann's to decide
        }
        out = value;
        return true;
    }

    std::string_view text_;
    PlainDuplicateKeys duplicates_;
    std::size_t at_ = 0;
};

}  // namespace

std::optional<json> parse_plain_json(std::string_view text, PlainDuplicateKeys duplicates) {
    return PlainJsonParser(text, duplicates).parse_document();
}

json parse_json(std::string_view text) {
    if (auto plain = parse_plain_json(text)) {
        return std::move(*plain);
    }
    return json::parse(text);
}

json parse_json_or_discarded(std::string_view text) {
    if (auto plain = parse_plain_json(text)) {
        return std::move(*plain);
    }
    return json::parse(text, nullptr, false);
}

}  // namespace ckpt
