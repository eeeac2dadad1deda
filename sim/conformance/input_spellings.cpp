// Each spelling's meaning follows from Python's float(), int(), bool() and str() as the seed
// applies them; the comments say which rule makes a spelling valid or refused.
#include "sim/conformance/input_spellings.hpp"

#include <cmath>

#include "sim/conformance/reference_answers.hpp"

namespace ckpt::sim::conformance {

using nlohmann::json;

ScoreInput score(double value) {
    return {json(value), value};
}
ScoreInput score_as_string(double value) {
    return {json(json(value).dump()), value};  // the shortest repr round-trips through float()
}
ScoreInput score_as_integer(std::int64_t value) {
    return {json(value), static_cast<double>(value)};
}
StepInput step(std::int64_t value) {
    return {json(value), value >= 0 ? std::optional(value) : std::nullopt};
}
StepInput step_as_float(std::int64_t value) {
    return {json(static_cast<double>(value)), value};
}
ObserveInput observe(double value, std::int64_t at) {
    return {score(value), step(at)};
}
BaselineInput baseline(double value) {
    return {score(value), std::nullopt};
}
BaselineInput baseline(double value, std::int64_t at) {
    return {score(value), step(at)};
}

const std::vector<ScoreInput>& refused_scores() {
    // float() fails on these (TypeError and ValueError are both refusals), or they are not finite.
    static const std::vector<ScoreInput> scores{
        {"nan", {}},   {"inf", {}},         {"-inf", {}},         {"abc", {}},   {"", {}},
        {nullptr, {}}, {json::array(), {}}, {json::object(), {}}, {"1e999", {}}, {json::array({0.5}), {}},
    };
    return scores;
}

const std::vector<StepInput>& refused_steps() {
    // int(step) must exist, be >= 0 and equal step itself; booleans are refused outright.
    static const std::vector<StepInput> steps{
        {-1, {}},      {2.5, {}},   {"3", {}},           {true, {}},           {false, {}},
        {nullptr, {}}, {"abc", {}}, {json::array(), {}}, {json::object(), {}}, {-0.5, {}},
    };
    return steps;
}

const std::vector<std::string>& malformed_lines() {
    static const std::vector<std::string> lines{
        R"(not json)",
        R"({"observe": {"score": 0.5}})",
        R"({"observe": {"step": 5}})",
        R"({"observe": {"score": 0.5, "step": 5, "extra": 1}})",
        R"({"observe": 0.5})",
        R"({"observe": null})",
        R"({"baseline": {"step": 0}})",
        R"({"baseline": {"score": 0.5, "when": 0}})",
        R"({"baseline": [0.5]})",
        R"({"evaluate": {"score": 0.5, "step": 5}})",
        R"({"observe": {"score": 0.5, "step": 5}, "baseline": {"score": 0.5}})",
        R"({})",
        R"([])",
        R"(3)",
        R"("observe")",
        R"(null)",
        R"({"observe": {"score": 0.5, "step": 5})",
    };
    return lines;
}

namespace {

json score_json(const std::optional<double>& value) {
    if (!value) {
        return nullptr;
    }
    if (std::isnan(*value)) {
        return "nan";  // JSON has no NaN; float("nan") is how a payload would carry one
    }
    if (std::isinf(*value)) {
        return *value > 0 ? "inf" : "-inf";
    }
    return *value;
}

json state_fields(const CheckpointEvaluationState& state) {
    return {
        {"best_score", score_json(state.best_score)},
        {"best_step", state.best_step ? json(*state.best_step) : json(nullptr)},
        {"lower_score_streak", state.lower_score_streak},
        {"evaluation_count", state.evaluation_count},
        {"stop_requested", state.stop_requested},
        {"best_is_external", state.best_is_external},
    };
}

json nested_payload(const PolicySettings& settings, json fields) {
    return {{"version", 1},
            {"patience", settings.patience},
            {"tie_policy", tie_policy_name(settings.tie_policy)},
            {"patience_start_step", settings.patience_start_step},
            {"state", std::move(fields)}};
}

std::string upper_padded(std::string name) {
    for (auto& c : name) {
        c = static_cast<char>(c - 'a' + 'A');
    }
    return "  " + name + " ";
}

}  // namespace

LoadInput load_state(const PolicySettings& settings, const CheckpointEvaluationState& state, LoadForm form) {
    switch (form) {
        case LoadForm::nested:
            return {nested_payload(settings, state_fields(state)), state};
        case LoadForm::nested_loose: {
            // version 1.0 == 1, int("3") == 3, int(30.0) == 30, " COUNT ".strip().lower() == "count".
            auto payload = nested_payload(settings, state_fields(state));
            payload["version"] = 1.0;
            payload["patience"] = std::to_string(settings.patience);
            payload["patience_start_step"] = static_cast<double>(settings.patience_start_step);
            payload["tie_policy"] = upper_padded(tie_policy_name(settings.tie_policy));
            payload["unknown_key"] = "ignored";  // the seed reads only the keys it knows
            return {payload, state};
        }
        case LoadForm::flat:
            return {state_fields(state), state};
    }
    return {state_fields(state), state};
}

LoadInput load_state_loosely(const PolicySettings& settings, const CheckpointEvaluationState& state,
                             bool float_step) {
    auto fields = state_fields(state);
    // int("2") == 2, int(2.0) == 2 and int(2.7) == 2 (truncation); bool(1), bool("x") and
    // bool("") are Python truthiness.
    fields["lower_score_streak"] = std::to_string(state.lower_score_streak);
    fields["evaluation_count"] = static_cast<double>(state.evaluation_count) + 0.75;
    fields["stop_requested"] = state.stop_requested ? 1 : 0;
    fields["best_is_external"] = state.best_is_external ? "yes" : "";
    if (float_step && state.best_step) {
        fields["best_step"] = static_cast<double>(*state.best_step);  // int(10.0) == 10.0 passes
    }
    return {nested_payload(settings, std::move(fields)), state};
}

std::vector<LoadInput> refused_loads(const PolicySettings& settings, const CheckpointEvaluationState& state) {
    const auto good = nested_payload(settings, state_fields(state));
    std::vector<LoadInput> loads;
    const auto with = [&](const char* key, json value) {
        auto payload = good;
        payload[key] = std::move(value);
        loads.push_back({std::move(payload), std::nullopt});
    };
    with("version", 2);
    with("version", "1");  // "1" != 1 in Python
    with("version", nullptr);
    with("patience", settings.patience + 1);
    with("patience", "abc");
    with("tie_policy", settings.tie_policy == TiePolicy::count ? "reset" : "count");
    with("tie_policy", "sometimes");
    with("patience_start_step", settings.patience_start_step + 1);
    with("state", nullptr);
    with("state", json::array());
    const auto with_field = [&](const char* key, json value) {
        auto fields = state_fields(state);
        fields[key] = std::move(value);
        loads.push_back({nested_payload(settings, std::move(fields)), std::nullopt});
    };
    with_field("best_step", 2.5);
    with_field("best_step", true);
    with_field("best_step", "10");
    with_field("best_score", "abc");
    with_field("best_score", json::array());
    with_field("lower_score_streak", "two");
    with_field("evaluation_count", "1.5");  // int("1.5") is a ValueError
    for (json not_a_mapping : {json::array(), json("state"), json(nullptr), json(3)}) {
        loads.push_back({not_a_mapping, std::nullopt});
    }
    return loads;
}

}  // namespace ckpt::sim::conformance
