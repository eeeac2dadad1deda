// The settings table: one row per configuration field, generated from member pointers so a row
// cannot compare one field and reset another.
#include "sim/explore/scenario_settings.hpp"

#include <array>

namespace ckpt::sim {
namespace {

const Scenario& defaults() {
    static const Scenario scenario{};
    return scenario;
}

// A field of one of the scenario's groups (trainer, callbacks, job, score).
template <auto Group, auto Member>
bool group_field_differs(const Scenario& s) {
    return !((s.*Group).*Member == (defaults().*Group).*Member);
}
template <auto Group, auto Member>
void reset_group_field(Scenario& s) {
    (s.*Group).*Member = (defaults().*Group).*Member;
}
template <auto Group, auto Member>
constexpr SettingField field(std::string_view name) {
    return {name, &group_field_differs<Group, Member>, &reset_group_field<Group, Member>};
}

// A field of the trigger callback's policy settings.
template <auto Member>
bool policy_field_differs(const Scenario& s) {
    return !(s.callbacks.policy.*Member == defaults().callbacks.policy.*Member);
}
template <auto Member>
void reset_policy_field(Scenario& s) {
    s.callbacks.policy.*Member = defaults().callbacks.policy.*Member;
}
template <auto Member>
constexpr SettingField policy_field(std::string_view name) {
    return {name, &policy_field_differs<Member>, &reset_policy_field<Member>};
}

constexpr auto T = &Scenario::trainer;
constexpr auto C = &Scenario::callbacks;

const std::array kFields{
    field<C, &CallbackOptions::gate_steps>("gate_steps"),
    field<C, &CallbackOptions::regular_steps>("regular_steps"),
    policy_field<&PolicySettings::patience>("policy.patience"),
    policy_field<&PolicySettings::tie_policy>("policy.tie_policy"),
    policy_field<&PolicySettings::patience_start_step>("policy.patience_start_step"),
    field<T, &TrainerOptions::save_strategy>("save_strategy"),
    field<T, &TrainerOptions::save_total_limit>("save_total_limit"),
    field<T, &TrainerOptions::protect_best_in_rotation>("protect_best_in_rotation"),
    field<T, &TrainerOptions::resume_rule>("resume_rule"),
    field<T, &TrainerOptions::restore_callback_states_from_checkpoint>(
        "restore_callback_states_from_checkpoint"),
    field<T, &TrainerOptions::checkpoint_fsync>("checkpoint_fsync"),
    field<T, &TrainerOptions::stop_test>("stop_test"),
    field<T, &TrainerOptions::resume_from_checkpoint>("resume_from_checkpoint"),
    field<T, &TrainerOptions::rotation_order>("rotation_order"),
    field<T, &TrainerOptions::transformers_release>("transformers_release"),
    field<T, &TrainerOptions::stateful_callbacks_refresh>("stateful_callbacks_refresh"),
    field<T, &TrainerOptions::restored_callbacks_position>("restored_callbacks_position"),
    field<T, &TrainerOptions::metric_for_best_model>("metric_for_best_model"),
    field<T, &TrainerOptions::greater_is_better>("greater_is_better"),
    field<T, &TrainerOptions::load_best_model_at_end>("load_best_model_at_end"),
    field<T, &TrainerOptions::max_grad_norm>("max_grad_norm"),
    field<T, &TrainerOptions::gradient_overflows>("gradient_overflows"),
    field<C, &CallbackOptions::early_stopping_callbacks>("early_stopping_callbacks"),
    // Before the state keys, so a shrink never leaves mixed keys without them.
    field<C, &CallbackOptions::early_stopping_mixed_keys>("early_stopping_mixed_keys"),
    field<C, &CallbackOptions::early_stopping_state_keys>("early_stopping_state_keys"),
    field<C, &CallbackOptions::upgraded_across_resume>("upgraded_across_resume"),
    field<C, &CallbackOptions::early_stopping_patience>("early_stopping_patience"),
    field<C, &CallbackOptions::early_stopping_threshold>("early_stopping_threshold"),
    SettingField{"resume_change", [](const Scenario& s) { return s.callbacks.resume_change.any(); },
                 [](Scenario& s) { s.callbacks.resume_change = {}; }},
    // A scripted model goes back to the default random walk with its script.
    SettingField{"score.kind", [](const Scenario& s) { return s.score.kind != defaults().score.kind; },
                 [](Scenario& s) {
                     s.score.kind = defaults().score.kind;
                     s.score.script.clear();
                 }},
    field<&Scenario::score, &ScoreModelConfig::noisy_replay>("score.noisy_replay"),
    field<&Scenario::score, &ScoreModelConfig::external_baseline>("score.external_baseline"),
    field<&Scenario::job, &JobOptions::watchdog>("watchdog"),
    // Replaying never reads the record; a shrunk scenario no longer looks as the switches drew it.
    SettingField{"buggify", [](const Scenario& s) { return !s.buggify.empty(); },
                 [](Scenario& s) { s.buggify.clear(); }},
};

}  // namespace

std::span<const SettingField> setting_fields() {
    return kFields;
}

}  // namespace ckpt::sim
