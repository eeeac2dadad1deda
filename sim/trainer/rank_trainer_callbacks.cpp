// The trainer's callback list: built from the configuration in force for this incarnation,
// restored from a checkpoint's stateful_callbacks as Transformers' _load_callback_state does (when
// restore_callback_states_from_checkpoint is on), with restored callbacks moved to the end of the
// list when the scenario says so. Split from rank_trainer.cpp, whose loop uses these members.
#include <algorithm>

#include "sim/trainer/rank_failure.hpp"
#include "sim/trainer/rank_trainer.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

TriggerCallbackConfig trigger_config(const Scenario& s, const PolicySettings& policy, int incarnation) {
    TriggerCallbackConfig config;
    config.sidecar_version = sidecar_version_written(s.callbacks, incarnation);
    config.policy = policy;
    config.gate_steps = s.callbacks.gate_steps;
    config.regular_steps = s.callbacks.regular_steps;
    config.save_total_limit = s.trainer.save_total_limit;
    config.temp_file_tag = "sim";
    return config;
}

}  // namespace

void RankTrainer::build_callbacks() {
    callbacks_.clear();
    early_stopping_.clear();
    // A job resumed from a checkpoint runs the configuration the user may have changed since.
    const auto& options = job_.scenario.callbacks;
    const auto configured = configured_callbacks(options, job_.resume_step.has_value());
    callbacks_.push_back(
        job_.triggers.build(trigger_config(job_.scenario, configured.policy, job_.incarnation), collective_));
    // Several callbacks of one class must save and restore their state (P10). With the default
    // patience they never stop a run; a scenario's small patience lets them stop it.
    for (const int id : configured.early_stopping) {
        const int patience = options.early_stopping_patience + id;
        const double threshold = options.early_stopping_threshold * id;
        callbacks_.push_back(
            job_.early_stopping.make(patience, threshold, early_stopping_keyed(options, id)));
    }
    find_callbacks();
}

void RankTrainer::find_callbacks() {
    trigger_ = nullptr;
    early_stopping_.clear();
    for (const auto& callback : callbacks_) {
        if (auto* trigger = dynamic_cast<TriggerPort*>(callback.get())) {
            trigger_ = trigger;
            trigger_class_ = trigger->class_name();
        } else if (job_.early_stopping.is_one(*callback)) {
            early_stopping_.push_back(callback.get());
        }
    }
}

// _load_callback_state: for each stored class (a JSON object iterates its keys sorted, as
// save_to_json's sort_keys wrote them), the live callbacks of that class it restored (zipped with
// its stored states) are removed and the rebuilt ones appended to the end of the callback list.
void RankTrainer::move_restored_callbacks_to_end(const std::vector<bool>& restored) {
    // Stored classes in their JSON (sorted) order; within a class, the restored callbacks in list
    // order. Under state keys a restore may skip a callback, which then stays where it was.
    std::vector<std::unique_ptr<ExportableState>> moved;
    for (const auto& [class_name, data] : stored_callbacks().items()) {
        for (std::size_t index = 0; index < callbacks_.size(); ++index) {
            auto& callback = callbacks_[index];
            if (restored[index] && callback && callback->class_name() == class_name) {
                moved.push_back(std::move(callback));
            }
        }
    }
    std::erase_if(callbacks_, [](const auto& callback) { return callback == nullptr; });
    for (auto& callback : moved) {
        callbacks_.push_back(std::move(callback));
    }
}

std::vector<const ExportableState*> RankTrainer::stateful_callbacks() const {
    std::vector<const ExportableState*> out;
    out.reserve(callbacks_.size() + 1);
    for (const auto& callback : callbacks_) {
        out.push_back(callback.get());
    }
    out.push_back(&control_);  // Transformers saves callbacks + [self.control]
    return out;
}

// type(callback)(**args) then its attributes, for every class the trainer configures.
std::unique_ptr<ExportableState> RankTrainer::rebuild_callback(const std::string& class_name,
                                                               const json& saved) {
    if (class_name == "TrainerControl") {
        // TrainerControl(**args): a flag the dataclass lacks is Python's TypeError.
        static const json flags = TrainerControl().state()["args"];
        const json args = saved.value("args", json::object());
        for (const auto& [name, value] : args.items()) {
            if (!flags.contains(name)) {
                throw std::invalid_argument("TrainerControl.__init__() got an unexpected keyword argument '" +
                                            name + "'");
            }
        }
        return std::make_unique<TrainerControl>(TrainerControl::from_state(saved));
    }
    if (class_name == trigger_class_) {
        return job_.triggers.rebuild(saved, collective_);
    }
    return job_.early_stopping.rebuild(saved);
}

void RankTrainer::restore_from_checkpoint(std::int64_t step) {
    const auto& state = job_.resume_trainer_state.state;
    global_step_ = state.at("global_step").get<std::int64_t>();
    best_ = TrainerBest::from_trainer_state(state);  // TrainerState.load_from_json
    if (const auto& text = job_.resume_trainer_state.log_history_text; text && should_save()) {
        log_history_.restore_text(text->view());
    } else if (const auto logged = state.find("log_history"); logged != state.end() && should_save()) {
        log_history_.restore(*logged);
    }
    static const json no_callbacks = json::object();
    const auto found = state.find("stateful_callbacks");
    resumed_callbacks_ = found != state.end() ? &*found : &no_callbacks;
    if (!job_.scenario.trainer.restore_callback_states_from_checkpoint) {
        // Transformers' default: _load_callback_state returns at once, every callback keeps
        // the state it was configured with (nothing is restored, so P10 has nothing to judge).
        return;
    }

    std::vector<std::unique_ptr<ExportableState>> configured;
    std::vector<const ExportableState*> as_configured;
    for (auto& callback : callbacks_) {
        as_configured.push_back(callback.get());
        configured.push_back(std::move(callback));
    }
    configured.push_back(std::make_unique<TrainerControl>(control_));
    RestoredCallbackList restored;
    try {
        restored = job_.callback_states.restore(stored_callbacks(), std::move(configured),
                                                [this](const std::string& class_name, const json& saved) {
                                                    return rebuild_callback(class_name, saved);
                                                });
    } catch (const std::exception& error) {
        // Every rank reads the same file and fails the same way, before any collective. A failure
        // that already has a kind (a refusal, the harness's own) keeps it.
        if (failure_kind(error) != RankFailureKind::other) {
            throw;
        }
        throw CallbackStateRestoreFailed(error.what());
    }

    control_ = dynamic_cast<const TrainerControl&>(*restored.callbacks.back());
    restored.callbacks.pop_back();
    callbacks_ = std::move(restored.callbacks);
    if (job_.scenario.trainer.restored_callbacks_position == RestoredCallbacksPosition::end) {
        // A callback the restore rebuilt is a new object.
        std::vector<bool> restored(callbacks_.size());
        for (std::size_t index = 0; index < callbacks_.size(); ++index) {
            restored[index] = callbacks_[index].get() != as_configured[index];
        }
        move_restored_callbacks_to_end(restored);
    }
    find_callbacks();
    if (is_rank_zero()) {
        const auto restored_states = job_.callback_states.export_states(stateful_callbacks());
        emit(CallbacksRestored{step, restored_states, restored.warnings, job_.callback_states.under_test()});
    }
}

}  // namespace ckpt::sim
