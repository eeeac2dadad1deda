// The probe as a SAX parser: it validates the whole text but keeps only the top-level
// global_step, so a large trainer_state.json costs no allocation of its tree.
#include "policy/formats/trainer_state_probe.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "policy/formats/recent_probe_results.hpp"

namespace ckpt {
namespace {

// Follows nesting depth and the last key at the top level; ignores every other value.
class GlobalStepProbe final : public nlohmann::json_sax<nlohmann::json> {
  public:
    std::optional<std::int64_t> global_step;
    bool top_level_is_object = false;

    bool null() override { return value(); }
    bool boolean(bool /*v*/) override { return value(); }
    bool number_integer(number_integer_t v) override { return integer(v); }
    bool number_unsigned(number_unsigned_t v) override {
        return v <= static_cast<number_unsigned_t>(INT64_MAX) ? integer(static_cast<std::int64_t>(v))
                                                              : value();
    }
    bool number_float(number_float_t /*v*/, const string_t& /*s*/) override { return value(); }
    bool string(string_t& /*v*/) override { return value(); }
    bool binary(binary_t& /*v*/) override { return value(); }
    bool start_object(std::size_t /*n*/) override {
        if (depth_ == 0) {
            top_level_is_object = true;
        }
        ++depth_;
        return true;
    }
    bool key(string_t& k) override {
        key_is_global_step_ = depth_ == 1 && k == "global_step";
        return true;
    }
    bool end_object() override {
        --depth_;
        key_is_global_step_ = false;
        return true;
    }
    bool start_array(std::size_t /*n*/) override {
        ++depth_;
        key_is_global_step_ = false;
        return true;
    }
    bool end_array() override {
        --depth_;
        return true;
    }
    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const nlohmann::detail::exception& /*error*/) override {
        return false;
    }

  private:
    bool value() {
        if (key_is_global_step_) {
            global_step.reset();  // a later non-integer global_step wins, as in a parsed object
        }
        key_is_global_step_ = false;
        return true;
    }
    bool integer(std::int64_t v) {
        if (key_is_global_step_) {
            global_step = v;
        }
        key_is_global_step_ = false;
        return true;
    }

    int depth_ = 0;
    bool key_is_global_step_ = false;
};

}  // namespace

std::optional<std::int64_t> probe_global_step(std::string_view trainer_state_json) {
    // nlohmann's lexer takes a NUL byte for the end of input, so "{...}\0junk" would pass.
    if (trainer_state_json.find('\0') != std::string_view::npos) {
        return std::nullopt;
    }
    // The same checkpoint is probed again at recovery, adoption and resume, usually with bytes
    // unchanged since its commit; identical bytes give the identical answer.
    thread_local RecentProbeResults<std::optional<std::int64_t>> recent;
    if (const auto known = recent.find(trainer_state_json)) {
        return *known;
    }
    GlobalStepProbe probe;
    const bool valid =
        nlohmann::json::sax_parse(trainer_state_json.begin(), trainer_state_json.end(), &probe);
    const auto step = valid && probe.top_level_is_object ? probe.global_step : std::nullopt;
    recent.remember(trainer_state_json, step);
    return step;
}

}  // namespace ckpt
