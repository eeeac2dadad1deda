// The exact reader accepts only what it can decide the same way as the general path: ASCII
// structure, known keys at most once each, integers that fit an int64 where the general path
// calls int(), floats with a fraction or exponent (or null) for best_score, true/false for the
// flags, and settings equal to the policy's. Everything else, including every input the general
// path would refuse before validate_state, is handed to the general path, which decides it.
#include "policy/formats/state_json_reader.hpp"

#include <charconv>
#include <cstdint>
#include <optional>

#include "policy/base/untrusted_json.hpp"

namespace ckpt {
namespace {

// A cursor over the text. Every read returns false (or nullopt) to mean "not the exact form".
class ExactReader {
  public:
    explicit ExactReader(std::string_view text) : text_(text) {}

    void skip_space() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t')) {
            ++pos_;
        }
    }
    bool at_end() {
        skip_space();
        return pos_ == text_.size();
    }
    bool take(char expected) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == expected) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool take_word(std::string_view word) {
        skip_space();
        if (text_.substr(pos_, word.size()) == word) {
            pos_ += word.size();
            return true;
        }
        return false;
    }

    // A string of [a-z_] only: no escapes, nothing a byte-wise compare could misjudge.
    std::optional<std::string_view> plain_string() {
        if (!take('"')) {
            return std::nullopt;
        }
        const auto start = pos_;
        while (pos_ < text_.size() && ((text_[pos_] >= 'a' && text_[pos_] <= 'z') || text_[pos_] == '_')) {
            ++pos_;
        }
        if (pos_ == text_.size() || text_[pos_] != '"') {
            return std::nullopt;
        }
        return text_.substr(start, pos_++ - start);
    }

    // A JSON integer token (no fraction, no exponent) that fits an int64.
    std::optional<std::int64_t> integer() {
        const auto token = number_token();
        if (!token || token->find_first_of(".eE") != std::string_view::npos) {
            return std::nullopt;
        }
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(token->data(), token->data() + token->size(), value);
        if (error != std::errc() || end != token->data() + token->size()) {
            return std::nullopt;
        }
        return value;
    }

    // A JSON number with a fraction or an exponent, finite and not underflowing as a double.
    std::optional<double> floating() {
        const auto token = number_token();
        if (!token || token->find_first_of(".eE") == std::string_view::npos) {
            return std::nullopt;
        }
        double value = 0.0;
        const auto [end, error] = std::from_chars(token->data(), token->data() + token->size(), value);
        if (error != std::errc() || end != token->data() + token->size()) {
            return std::nullopt;
        }
        return value;
    }

    std::optional<bool> boolean() {
        if (take_word("true")) {
            return true;
        }
        if (take_word("false")) {
            return false;
        }
        return std::nullopt;
    }

  private:
    bool digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }
    void skip_digits() {
        while (digit()) {
            ++pos_;
        }
    }

    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? exactly, as RFC 8259 writes it.
    std::optional<std::string_view> number_token() {
        skip_space();
        const auto start = pos_;
        if (pos_ < text_.size() && text_[pos_] == '-') {
            ++pos_;
        }
        if (!digit()) {
            return std::nullopt;
        }
        if (text_[pos_++] != '0') {
            skip_digits();
        }
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (!digit()) {
                return std::nullopt;
            }
            skip_digits();
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
                ++pos_;
            }
            if (!digit()) {
                return std::nullopt;
            }
            skip_digits();
        }
        return text_.substr(start, pos_ - start);
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// Reads `{ "key": value, ... }`, calling member(key) for each; member reads the value and says
// whether it was in the exact form. A key seen twice (a duplicate the general path refuses) or an
// empty object is not the exact form.
template <typename Member>
bool read_object(ExactReader& in, Member&& member) {
    if (!in.take('{')) {
        return false;
    }
    unsigned seen = 0;
    do {
        const auto key = in.plain_string();
        if (!key || !in.take(':')) {
            return false;
        }
        const int bit = member(*key);
        if (bit < 0 || (seen & (1U << bit)) != 0) {
            return false;
        }
        seen |= 1U << bit;
    } while (in.take(','));
    return in.take('}');
}

// The nested state's members; missing ones keep the general path's defaults. Returns the key's
// bit, or -1 when the key or its value is outside the exact form.
int read_state_member(ExactReader& in, std::string_view key, CheckpointEvaluationState& state) {
    if (key == "best_score") {
        if (in.take_word("null")) {
            state.best_score.reset();
        } else if (const auto score = in.floating()) {
            state.best_score = *score;
        } else {
            return -1;
        }
        return 0;
    }
    if (key == "best_step") {
        if (in.take_word("null")) {
            state.best_step.reset();
        } else if (const auto step = in.integer(); step && *step >= 0) {
            state.best_step = *step;
        } else {
            return -1;
        }
        return 1;
    }
    if (key == "lower_score_streak" || key == "evaluation_count") {
        const auto count = in.integer();
        if (!count) {
            return -1;
        }
        (key == "lower_score_streak" ? state.lower_score_streak : state.evaluation_count) = *count;
        return key == "lower_score_streak" ? 2 : 3;
    }
    if (key == "stop_requested" || key == "best_is_external") {
        const auto flag = in.boolean();
        if (!flag) {
            return -1;
        }
        (key == "stop_requested" ? state.stop_requested : state.best_is_external) = *flag;
        return key == "stop_requested" ? 4 : 5;
    }
    return -1;
}

// The top level: settings must equal `settings` (the general path refuses any other), and the
// "state" member must be there (without it the general path reads a flat state instead).
std::optional<CheckpointEvaluationState> read_exact_state(std::string_view text,
                                                          const PolicySettings& settings) {
    ExactReader in(text);
    CheckpointEvaluationState state;
    bool has_state = false;
    const auto member = [&](std::string_view key) -> int {
        if (key == "version") {
            return in.integer() == CheckpointEvaluationPolicy::kStateVersion ? 0 : -1;
        }
        if (key == "patience") {
            return in.integer() == settings.patience ? 1 : -1;
        }
        if (key == "patience_start_step") {
            return in.integer() == settings.patience_start_step ? 2 : -1;
        }
        if (key == "tie_policy") {
            return in.plain_string() == to_string(settings.tie_policy) ? 3 : -1;
        }
        if (key == "state") {
            has_state = true;
            return read_object(in, [&](std::string_view k) { return read_state_member(in, k, state); }) ? 4
                                                                                                        : -1;
        }
        return -1;
    };
    if (!read_object(in, member) || !has_state || !in.at_end()) {
        return std::nullopt;
    }
    return state;
}

}  // namespace

StateTextPath load_state_dict_text(CheckpointEvaluationPolicy& policy, std::string_view text,
                                   const std::string& document) {
    if (const auto state = read_exact_state(text, policy.settings())) {
        // The constructor runs validate_state, the general path's last check, with its messages.
        policy = CheckpointEvaluationPolicy(policy.settings(), *state);
        return StateTextPath::exact;
    }
    policy.load_state_dict(parse_untrusted_json(text, document));
    return StateTextPath::general;
}

}  // namespace ckpt
