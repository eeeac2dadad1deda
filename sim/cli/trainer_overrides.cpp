// The trainer overrides' flags: enum flags accept exactly the names of their scenario field's
// table (scenario.hpp), so the command line and the scenario file spell values alike.
#include "sim/cli/trainer_overrides.hpp"

namespace ckpt::cli {
namespace {

template <typename Enum, std::size_t N>
std::vector<std::string> names_of(const sim::EnumNames<Enum, N>& names) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < N; ++i) {
        out.emplace_back(names.name(static_cast<Enum>(i)));
    }
    return out;
}

template <typename Enum, std::size_t N>
Enum parsed(const sim::EnumNames<Enum, N>& names, const std::optional<std::string>& text) {
    return *names.parse(*text);  // checked by CLI::IsMember when parsed
}

}  // namespace

void TrainerOverrides::add_to(CLI::App* command) {
    command->add_option("--restore-callback-states-from-checkpoint", restore_callback_states_from_checkpoint,
                        "Override TrainingArguments.restore_callback_states_from_checkpoint (true|false)");
    command->add_option("--checkpoint-fsync", checkpoint_fsync,
                        "Override whether the checkpoint writer fsyncs (true|false; Transformers: false)");
    command->add_option("--stop-test", stop_test, "Override where the loop tests the stop")
        ->check(CLI::IsMember(names_of(sim::kStopTestNames)));
    command
        ->add_option("--resume-from-checkpoint", resume_from_checkpoint,
                     "Override what the launcher passes to train(resume_from_checkpoint=...)")
        ->check(CLI::IsMember(names_of(sim::kResumeArgumentNames)));
    command->add_option("--resume-rule", resume_rule, "Override the resume rule")
        ->check(CLI::IsMember(names_of(sim::kResumeRuleNames)));
    command->add_option("--rotation-order", rotation_order, "Override _rotate_checkpoints' order (use_mtime)")
        ->check(CLI::IsMember(names_of(sim::kRotationOrderNames)));
    command
        ->add_option("--stateful-callbacks-refresh", stateful_callbacks_refresh,
                     "Override how several callbacks of one class are refreshed in stateful_callbacks")
        ->check(CLI::IsMember(names_of(sim::kStatefulCallbacksRefreshNames)));
    command
        ->add_option("--restored-callbacks-position", restored_callbacks_position,
                     "Override where _load_callback_state puts the callbacks it restored")
        ->check(CLI::IsMember(names_of(sim::kRestoredCallbacksPositionNames)));
}

bool TrainerOverrides::any() const noexcept {
    return restore_callback_states_from_checkpoint || checkpoint_fsync || stop_test ||
           resume_from_checkpoint || resume_rule || rotation_order || stateful_callbacks_refresh ||
           restored_callbacks_position;
}

void TrainerOverrides::apply(sim::Scenario& scenario) const {
    auto& trainer = scenario.trainer;
    if (restore_callback_states_from_checkpoint) {
        trainer.restore_callback_states_from_checkpoint = *restore_callback_states_from_checkpoint;
    }
    if (checkpoint_fsync) {
        trainer.checkpoint_fsync = *checkpoint_fsync;
    }
    if (stop_test) {
        trainer.stop_test = parsed(sim::kStopTestNames, stop_test);
    }
    if (resume_from_checkpoint) {
        trainer.resume_from_checkpoint = parsed(sim::kResumeArgumentNames, resume_from_checkpoint);
    }
    if (resume_rule) {
        trainer.resume_rule = parsed(sim::kResumeRuleNames, resume_rule);
    }
    if (rotation_order) {
        trainer.rotation_order = parsed(sim::kRotationOrderNames, rotation_order);
    }
    if (stateful_callbacks_refresh) {
        trainer.stateful_callbacks_refresh =
            parsed(sim::kStatefulCallbacksRefreshNames, stateful_callbacks_refresh);
    }
    if (restored_callbacks_position) {
        trainer.restored_callbacks_position =
            parsed(sim::kRestoredCallbacksPositionNames, restored_callbacks_position);
    }
}

}  // namespace ckpt::cli
