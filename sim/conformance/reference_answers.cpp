// One input at a time: the seed's order of checks (score, then step, then the stop), then the
// reference decision rules; a refused input leaves the state as it was.
#include "sim/conformance/reference_answers.hpp"

#include "sim/checks/reference_policy.hpp"

namespace ckpt::sim::conformance {
namespace {

using nlohmann::json;

json optional_json(const auto& value) {
    return value ? json(*value) : json(nullptr);
}

json refused(const char* kind, const json& state) {
    return {{"error", {{"kind", kind}}}, {"state", state}};
}

class ReferenceRunner {
  public:
    explicit ReferenceRunner(const PolicySettings& settings) : settings_(settings) {}

    json operator()(const ObserveInput& in) {
        if (!in.score.value || !in.step.value) {
            return refused("value_error", state_json());
        }
        if (state_.stop_requested) {
            return refused("runtime_error", state_json());
        }
        const auto outcome = reference_observe(settings_, state_, *in.score.value, *in.step.value);
        state_ = outcome.after;
        const json decision{
            {"score", *in.score.value},
            {"step", *in.step.value},
            {"should_save", outcome.should_save},
            {"should_stop", outcome.should_stop},
            {"reason", outcome.reason},
            {"best_score", *state_.best_score},
            {"best_step", *state_.best_step},
            {"lower_score_streak", state_.lower_score_streak},
            {"evaluation_count", state_.evaluation_count},
            {"best_is_external", state_.best_is_external},
        };
        return {{"decision", decision}, {"state", state_json()}};
    }
    json operator()(const BaselineInput& in) {
        const std::optional<std::int64_t> step = in.step ? in.step->value : std::optional<std::int64_t>(0);
        if (!in.score.value || !step) {
            return refused("value_error", state_json());
        }
        state_ = reference_baseline(state_, *in.score.value, *step);
        return {{"state", state_json()}};
    }
    json operator()(const LoadInput& in) {
        if (!in.candidate || !reference_state_problem(*in.candidate).empty()) {
            return refused("value_error", state_json());
        }
        state_ = *in.candidate;
        return {{"state", state_json()}};
    }
    json operator()(const MalformedInput&) { return {{"error", {{"kind", "input_error"}}}}; }

  private:
    json state_json() const { return reference_state_dict(settings_, state_); }

    PolicySettings settings_;
    CheckpointEvaluationState state_;
};

}  // namespace

const char* tie_policy_name(TiePolicy policy) {
    return reference_tie_policy_name(policy);
}

json reference_state_dict(const PolicySettings& settings, const CheckpointEvaluationState& state) {
    return {
        {"version", 1},
        {"patience", settings.patience},
        {"tie_policy", tie_policy_name(settings.tie_policy)},
        {"patience_start_step", settings.patience_start_step},
        {"state",
         {
             {"best_score", optional_json(state.best_score)},
             {"best_step", optional_json(state.best_step)},
             {"lower_score_streak", state.lower_score_streak},
             {"evaluation_count", state.evaluation_count},
             {"stop_requested", state.stop_requested},
             {"best_is_external", state.best_is_external},
         }},
    };
}

std::vector<json> reference_answers(const PolicySettings& settings, const std::vector<PolicyInput>& inputs) {
    ReferenceRunner runner(settings);
    std::vector<json> answers;
    answers.reserve(inputs.size());
    for (const auto& input : inputs) {
        answers.push_back(std::visit(runner, input));
    }
    return answers;
}

}  // namespace ckpt::sim::conformance
