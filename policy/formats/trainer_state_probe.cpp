// The probe as a one-pass validating scanner: it checks the whole text against the grammar
// nlohmann::json::parse accepts (RFC 8259, UTF-8 validated, a leading byte-order mark skipped,
// no comments, no trailing commas, no NaN) and keeps only the top-level global_step. No tree,
// no token strings: nlohmann's lexer copied every byte of every token, which made this probe the
// largest single cost of a commit. Nesting is followed on an explicit stack, so depth costs no
// native stack. trainer_state_probe_test.cpp holds it to nlohmann's answer on mutated texts.
#include "policy/formats/trainer_state_probe.hpp"

#include <array>
#include <cstring>
#include <string>

#include "policy/base/utf8_sequence.hpp"
#include "policy/formats/recent_probe_results.hpp"

namespace ckpt {
namespace {

constexpr std::string_view kGlobalStep = "global_step";

// The bytes a JSON string holds as they are (ASCII from the space up, but the quote and the
// backslash); control bytes, escapes and UTF-8 sequences take the byte-by-byte path.
constexpr std::array<bool, 256> kSelfStandingByte = [] {
    std::array<bool, 256> plain{};
    for (int byte = 0x20; byte < 0x80; ++byte) {
        plain[static_cast<std::size_t>(byte)] = byte != '"' && byte != '\\';
    }
    return plain;
}();

class GlobalStepScanner {
  public:
    // `watched`, when not null, is a position in `text`: scan_object() then reports whether an
    // element of an array starts exactly there.
    explicit GlobalStepScanner(std::string_view text, const char* watched = nullptr)
        : at_(text.data()), end_(text.data() + text.size()), watched_(watched) {}

    // Whether the text is one valid JSON document whose top level is an object.
    bool scan_object() {
        if (!skip_byte_order_mark()) {
            return false;
        }
        skip_whitespace();
        if (at_ == end_ || *at_ != '{') {
            return false;  // valid or not, it is not an object
        }
        if (!scan_document()) {
            return false;
        }
        skip_whitespace();
        return at_ == end_;
    }
    // After scan_object(): the step, or nullopt when global_step (the last one, as in a parsed
    // object) is missing or not an int64 integer.
    std::optional<std::int64_t> step() const { return step_; }
    bool array_element_at_watched() const { return array_element_at_watched_; }

  private:
    // nlohmann skips a UTF-8 byte-order mark and refuses a text that starts with part of one.
    bool skip_byte_order_mark() {
        if (at_ == end_ || static_cast<unsigned char>(*at_) != 0xEF) {
            return true;
        }
        if (end_ - at_ < 3 || static_cast<unsigned char>(at_[1]) != 0xBB ||
            static_cast<unsigned char>(at_[2]) != 0xBF) {
            return false;
        }
        at_ += 3;
        return true;
    }

    void skip_whitespace() {
        while (at_ != end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) {
            ++at_;
        }
    }

    // Values until the top-level object closes. `open_` holds '{' or '[' per open container.
    bool scan_document() {
        for (;;) {
            if (!scan_value()) {
                return false;
            }
            if (opened_) {
                opened_ = false;
                continue;  // a container opened: its first value comes next
            }
            // After a value: close containers and find where the next value starts.
            for (;;) {
                if (open_.empty()) {
                    return true;
                }
                skip_whitespace();
                if (at_ == end_) {
                    return false;
                }
                const char closer = open_.back() == '{' ? '}' : ']';
                if (*at_ == closer) {
                    ++at_;
                    open_.pop_back();
                    continue;
                }
                if (*at_ != ',') {
                    return false;
                }
                ++at_;
                if (open_.back() == '{' && !scan_member_name()) {
                    return false;
                }
                break;
            }
        }
    }

    // One value; a non-empty container is opened (its first member name read), left open, and
    // flagged in opened_.
    bool scan_value() {
        skip_whitespace();
        if (at_ == end_) {
            return false;
        }
        if (at_ == watched_) {
            array_element_at_watched_ = !open_.empty() && open_.back() == '[';
        }
        const bool is_step = value_is_global_step_;
        value_is_global_step_ = false;
        if (is_step) {
            step_.reset();  // anything but an integer that fits replaces an earlier step with none
        }
        switch (*at_) {
            case '{':
            case '[': {
                const char opener = *at_++;
                skip_whitespace();
                if (at_ != end_ && *at_ == (opener == '{' ? '}' : ']')) {
                    ++at_;  // empty: nothing stays open
                    return true;
                }
                open_.push_back(opener);
                opened_ = true;
                return opener == '[' || scan_member_name();
            }
            case '"':
                return scan_string(nullptr);
            case 't':
                return scan_literal("true");
            case 'f':
                return scan_literal("false");
            case 'n':
                return scan_literal("null");
            default:
                return scan_number(is_step);
        }
    }

    // `"name"` and its colon. A name directly in the top-level object is decoded, to see
    // global_step however it is escaped.
    bool scan_member_name() {
        skip_whitespace();
        if (at_ == end_ || *at_ != '"') {
            return false;
        }
        const bool top_level = open_.size() == 1;
        name_.clear();
        if (!scan_string(top_level ? &name_ : nullptr)) {
            return false;
        }
        skip_whitespace();
        if (at_ == end_ || *at_ != ':') {
            return false;
        }
        ++at_;
        value_is_global_step_ = top_level && name_ == kGlobalStep;
        return true;
    }

    bool scan_literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - at_) < word.size() ||
            std::memcmp(at_, word.data(), word.size()) != 0) {
            return false;
        }
        at_ += word.size();
        return true;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. A plain integer within int64 is kept when
    // it is the global_step; nlohmann reads any other number (fraction, exponent, beyond int64)
    // as no int64 integer.
    bool scan_number(bool is_step) {
        const bool negative = at_ != end_ && *at_ == '-';
        if (negative) {
            ++at_;
        }
        if (at_ == end_ || !is_digit(*at_)) {
            return false;
        }
        std::uint64_t magnitude = 0;
        bool fits = true;
        if (*at_ == '0') {
            ++at_;
        } else {
            while (at_ != end_ && is_digit(*at_)) {
                const auto digit = static_cast<std::uint64_t>(*at_++ - '0');
                if (magnitude > (UINT64_MAX - digit) / 10) {
                    fits = false;
                }
                magnitude = fits ? magnitude * 10 + digit : magnitude;
            }
        }
        bool integer = true;
        if (at_ != end_ && *at_ == '.') {
            ++at_;
            integer = false;
            if (!scan_digits()) {
                return false;
            }
        }
        if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
            ++at_;
            integer = false;
            if (at_ != end_ && (*at_ == '+' || *at_ == '-')) {
                ++at_;
            }
            if (!scan_digits()) {
                return false;
            }
        }
        constexpr auto kMaxPositive = static_cast<std::uint64_t>(INT64_MAX);
        if (is_step && integer && fits && magnitude <= kMaxPositive + (negative ? 1 : 0)) {
            step_ =
                negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
        }
        return true;
    }

    bool scan_digits() {
        if (at_ == end_ || !is_digit(*at_)) {
            return false;
        }
        while (at_ != end_ && is_digit(*at_)) {
            ++at_;
        }
        return true;
    }

    // A string from its opening quote: escapes (\u with surrogate pairs), no control
    // characters, UTF-8 as RFC 3629 draws it. `decoded`, when given, receives its value.
    bool scan_string(std::string* decoded) {
        ++at_;
        for (;;) {
            // A run of bytes that stand for themselves, at one table look-up a byte.
            const char* run = at_;
            while (at_ != end_ && kSelfStandingByte[static_cast<unsigned char>(*at_)]) {
                ++at_;
            }
            if (decoded != nullptr && at_ != run) {
                decoded->append(run, at_);
            }
            if (at_ == end_) {
                return false;
            }
            const auto byte = static_cast<unsigned char>(*at_);
            if (byte == '"') {
                ++at_;
                return true;
            }
            if (byte == '\\') {
                if (!scan_escape(decoded)) {
                    return false;
                }
            } else if (byte < 0x20) {
                return false;
            } else if (byte < 0x80) {
                if (decoded != nullptr) {
                    decoded->push_back(static_cast<char>(byte));
                }
                ++at_;
            } else {
                const char* start = at_;
                if (!scan_utf8_sequence()) {
                    return false;
                }
                if (decoded != nullptr) {
                    decoded->append(start, at_);
                }
            }
        }
    }

    bool scan_escape(std::string* decoded) {
        ++at_;  // the backslash
        if (at_ == end_) {
            return false;
        }
        const char kind = *at_++;
        char plain = 0;
        switch (kind) {
            case '"':
            case '\\':
            case '/':
                plain = kind;
                break;
            case 'b':
                plain = '\b';
                break;
            case 'f':
                plain = '\f';
                break;
            case 'n':
                plain = '\n';
                break;
            case 'r':
                plain = '\r';
                break;
            case 't':
                plain = '\t';
                break;
            case 'u':
                return scan_unicode_escape(decoded);
            default:
                return false;
        }
        if (decoded != nullptr) {
            decoded->push_back(plain);
        }
        return true;
    }

    // After "\u": four hex digits; a high surrogate must be followed by "\u" and a low one.
    bool scan_unicode_escape(std::string* decoded) {
        auto code_point = read_hex4();
        if (!code_point) {
            return false;
        }
        if (*code_point >= 0xDC00 && *code_point <= 0xDFFF) {
            return false;  // a low surrogate with no high one before it
        }
        if (*code_point >= 0xD800 && *code_point <= 0xDBFF) {
            if (end_ - at_ < 2 || at_[0] != '\\' || at_[1] != 'u') {
                return false;
            }
            at_ += 2;
            const auto low = read_hex4();
            if (!low || *low < 0xDC00 || *low > 0xDFFF) {
                return false;
            }
            code_point = 0x10000 + ((*code_point - 0xD800) << 10) + (*low - 0xDC00);
        }
        if (decoded != nullptr) {
            append_utf8(*decoded, *code_point);
        }
        return true;
    }

    std::optional<std::uint32_t> read_hex4() {
        if (end_ - at_ < 4) {
            return std::nullopt;
        }
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = *at_++;
            std::uint32_t digit = 0;
            if (c >= '0' && c <= '9') {
                digit = static_cast<std::uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                digit = static_cast<std::uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                digit = static_cast<std::uint32_t>(c - 'A' + 10);
            } else {
                return std::nullopt;
            }
            value = value * 16 + digit;
        }
        return value;
    }

    static void append_utf8(std::string& out, std::uint32_t code_point) {
        if (code_point < 0x80) {
            out.push_back(static_cast<char>(code_point));
        } else if (code_point < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
            out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
        } else if (code_point < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
            out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
            out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
        }
    }

    // One multi-byte UTF-8 sequence, valid as RFC 3629 draws it.
    bool scan_utf8_sequence() {
        const auto length =
            utf8_sequence_length(std::string_view(at_, static_cast<std::size_t>(end_ - at_)), 0);
        at_ += length;
        return length != 0;
    }

    static bool is_digit(char c) { return c >= '0' && c <= '9'; }

    const char* at_;
    const char* end_;
    const char* watched_;
    bool array_element_at_watched_ = false;
    std::string open_;  // '{' or '[' per open container, innermost last
    std::string name_;  // the last top-level member name, decoded
    bool value_is_global_step_ = false;
    bool opened_ = false;
    std::optional<std::int64_t> step_;
};

}  // namespace

std::optional<std::int64_t> probe_global_step(std::string_view trainer_state_json) {
    // The same checkpoint is probed again at recovery, adoption and resume, usually with bytes
    // unchanged since its commit; identical bytes give the identical answer.
    thread_local RecentProbeResults<std::optional<std::int64_t>> recent;
    if (const auto known = recent.find(trainer_state_json)) {
        return *known;
    }
    const auto outcome = probe_detail::scan_trainer_state(trainer_state_json, std::string_view::npos);
    const auto step = outcome.valid_object ? outcome.step : std::nullopt;
    recent.remember(trainer_state_json, step);
    return step;
}

namespace probe_detail {

ScanOutcome scan_trainer_state(std::string_view text, std::size_t watched) {
    // nlohmann's lexer takes a NUL byte for the end of input, so it refuses any text holding one
    // (this probe did so in its nlohmann days too, and keeps the answer).
    if (text.find('\0') != std::string_view::npos) {
        return {};
    }
    GlobalStepScanner scanner(text, watched < text.size() ? text.data() + watched : nullptr);
    const bool valid_object = scanner.scan_object();
    return {valid_object, scanner.step(), scanner.array_element_at_watched()};
}

}  // namespace probe_detail

}  // namespace ckpt
