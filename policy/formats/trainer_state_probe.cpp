// The probe as a one-pass validating scanner: it checks the whole text against the grammar
// nlohmann::json::parse accepts (RFC 8259, UTF-8 validated, a leading byte-order mark skipped,
// no comments, no trailing commas, no number beyond a double), widened by the three constants
// Python's json reads and writes (NaN, Infinity, -Infinity), and keeps only the top-level global_step and
// where stateful_callbacks and the trigger callback's entry in it lie. No tree, no token strings: nlohmann's
// lexer copied every byte of every token, which made this probe the largest single cost of a commit. Nesting
// is followed on an explicit stack, so depth costs no native stack. trainer_state_probe_test.cpp and
// trainer_state_probe_runs_test.cpp hold it to nlohmann's answer on the text with those constants read as
// numbers.
#include "policy/formats/trainer_state_probe.hpp"

#include <cstddef>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/base/byte_words.hpp"
#include "policy/base/mutants.hpp"
#include "policy/formats/json_string_scan.hpp"
#include "policy/formats/saved_trigger_callback.hpp"

namespace ckpt {
namespace {

constexpr std::string_view kGlobalStep = "global_step";
constexpr std::string_view kStatefulCallbacks = "stateful_callbacks";
// The largest finite double is below 10^309; exponents are counted up to a cap, past which any
// number with a nonzero digit is far out of a double's range either way.
constexpr std::ptrdiff_t kSurelyFiniteDecimalExponent = 308;
constexpr std::ptrdiff_t kExponentCap = 1'000'000;

// A value whose text a scan keeps: where it starts, where it ends, and the number of containers
// open around it, to which the scan returns where it ends (0 once it ended, or before it began).
struct Capture {
    const char* begin = nullptr;
    const char* end = nullptr;
    std::size_t depth = 0;

    bool scanning() const { return depth != 0; }
    void end_if_closed(const char* at, std::size_t open) {
        if (depth != 0 && open == depth) {
            end = at;
            depth = 0;
        }
    }
    std::optional<std::string_view> text() const {
        if (end == nullptr) {
            return std::nullopt;
        }
        return std::string_view(begin, static_cast<std::size_t>(end - begin));
    }
};

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
    // After scan_object(): the text of the last trigger callback entry in the last top-level
    // stateful_callbacks value, when that value is an object holding one.
    std::optional<std::string_view> trigger_callback() const { return trigger_.text(); }

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

    // Transformers indents trainer_state.json by two per level: most of its bytes are runs of
    // spaces, skipped eight at a time.
    void skip_whitespace() {
        while (at_ != end_) {
            const char c = *at_;
            if (c == ' ' && end_ - at_ >= 8) {
                at_ += byte_words::leading_spaces(at_);
            } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++at_;
            } else {
                return;
            }
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
                trigger_.end_if_closed(at_, open_.size());
                callbacks_.end_if_closed(at_, open_.size());
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
        if (value_is_callbacks_) {
            value_is_callbacks_ = false;
            callbacks_ = Capture{at_, nullptr, 1};
            trigger_ = Capture{};  // a later stateful_callbacks replaces the earlier one whole
        }
        if (value_is_trigger_) {
            value_is_trigger_ = false;
            trigger_ = Capture{at_, nullptr, 2};
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
            // Python's json.dumps writes a float that is not finite as these, and json.loads reads
            // them: Transformers logs a grad_norm of nan or inf that way (finding 28).
            case 'N':
                return !mutants::is_active(mutants::Mutant::python_constants_refused) && scan_literal("NaN");
            case 'I':
                return !mutants::is_active(mutants::Mutant::python_constants_refused) &&
                       scan_literal("Infinity");
            case '-':
                if (end_ - at_ > 1 && at_[1] == 'I') {
                    if (mutants::is_active(mutants::Mutant::python_constants_refused)) {
                        return false;
                    }
                    return scan_literal("-Infinity");
                }
                return scan_number(is_step);
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
        // A member of the stateful_callbacks object being scanned: a callback class.
        const bool callback_class = callbacks_.scanning() && open_.size() == 2;
        name_.clear();
        if (!scan_string(top_level || callback_class ? &name_ : nullptr)) {
            return false;
        }
        skip_whitespace();
        if (at_ == end_ || *at_ != ':') {
            return false;
        }
        ++at_;
        value_is_global_step_ = top_level && name_ == kGlobalStep;
        value_is_callbacks_ = top_level && name_ == kStatefulCallbacks;
        value_is_trigger_ = callback_class && name_ == kTriggerCallbackClass;
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

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, finite as a double: nlohmann's parser refuses
    // a number that converts to infinity (a flipped digit that became an exponent marker makes one,
    // finding 27). A plain integer within int64 is kept when it is the global_step; nlohmann reads
    // any other number (fraction, exponent, beyond int64) as no int64 integer.
    bool scan_number(bool is_step) {
        const char* begin = at_;
        const bool negative = at_ != end_ && *at_ == '-';
        if (negative) {
            ++at_;
        }
        if (at_ == end_ || !is_digit(*at_)) {
            return false;
        }
        const char* integer_begin = at_;
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
        const std::ptrdiff_t integer_digits = at_ - integer_begin;
        bool integer = true;
        if (at_ != end_ && *at_ == '.') {
            ++at_;
            integer = false;
            if (!scan_digits()) {
                return false;
            }
        }
        std::ptrdiff_t exponent = 0;
        if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
            ++at_;
            integer = false;
            const bool negative_exponent = at_ != end_ && *at_ == '-';
            if (at_ != end_ && (*at_ == '+' || *at_ == '-')) {
                ++at_;
            }
            if (at_ == end_ || !is_digit(*at_)) {
                return false;
            }
            for (; at_ != end_ && is_digit(*at_); ++at_) {
                exponent = exponent < kExponentCap ? exponent * 10 + (*at_ - '0') : exponent;
            }
            exponent = negative_exponent ? -exponent : exponent;
        }
        // Below 10^(integer digits + exponent) <= 10^308 a double is finite; nlohmann itself judges
        // the rare number beyond, as the contract says it does.
        if (integer_digits + exponent > kSurelyFiniteDecimalExponent &&
            !nlohmann::json::accept(std::string_view(begin, static_cast<std::size_t>(at_ - begin)))) {
            return false;
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

    bool scan_string(std::string* decoded) { return scan_json_string(at_, end_, decoded); }

    static bool is_digit(char c) { return c >= '0' && c <= '9'; }

    const char* at_;
    const char* end_;
    const char* watched_;
    bool array_element_at_watched_ = false;
    std::string open_;  // '{' or '[' per open container, innermost last
    std::string name_;  // the last top-level (or callback class) member name, decoded
    bool value_is_global_step_ = false;
    bool value_is_callbacks_ = false;
    bool value_is_trigger_ = false;
    Capture callbacks_;
    Capture trigger_;
    bool opened_ = false;
    std::optional<std::int64_t> step_;
};

}  // namespace

namespace probe_detail {

ScanOutcome scan_trainer_state(std::string_view text, std::size_t watched) {
    // Python's json.loads, Transformers' reader, refuses a text holding a NUL byte anywhere (nlohmann's
    // lexer would take a trailing one for the end of the input).
    if (text.find('\0') != std::string_view::npos) {
        return {};
    }
    GlobalStepScanner scanner(text, watched < text.size() ? text.data() + watched : nullptr);
    const bool valid_object = scanner.scan_object();
    const auto span_of = [&](std::optional<std::string_view> value) {
        return value ? TextSpan{static_cast<std::size_t>(value->data() - text.data()), value->size()}
                     : TextSpan{};
    };
    return {valid_object, scanner.step(), scanner.array_element_at_watched(),
            span_of(scanner.trigger_callback())};
}

}  // namespace probe_detail

}  // namespace ckpt
