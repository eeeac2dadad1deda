// TriggerCallback as an ExportableState: exactly the seed's "args" and "attributes" keys, and
// the seed's reconstruction from them.
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/base/json_object.hpp"
#include "policy/base/mutants.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/formats/trainer_state_probe.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/file_system_error.hpp"
#include "policy/python/python_values.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

const json& member_or_empty(const json& object, const char* key) {
    static const json empty = json::object();
    if (!object.is_object()) {
        return empty;
    }
    const auto found = object.find(key);
    return found != object.end() ? *found : empty;
}

// Every member of a state a checkpoint saved is one this class's state() writes at that place
// (`written`), or the state_key stored beside args and attributes. Two nodes' writes of one
// trainer_state.json interleaved by a power loss can garble a key into one that parses (finding
// 26): read leniently, as the seed's from_state reads, the member it named would silently take
// its default (no gate steps, a fresh policy state). Missing members still default, as an older
// release's state may lack one. Throws ValueError naming the first unexpected member.
void refuse_unexpected_members(const json& saved, const json& written, const std::string& where,
                               const std::string& source) {
    const auto nested = written.find("state");
    for (const auto& [name, value] : saved.items()) {
        const auto known = written.find(name);
        if (known == written.end()) {
            if (where.empty() && name == "state_key") {
                continue;
            }
            // load_state_dict also reads a flat payload, the state's members beside the settings.
            if (nested != written.end() && nested->is_object() && !saved.contains("state") &&
                nested->contains(name)) {
                continue;
            }
            throw ValueError("checkpoint evaluation cannot restore the state saved in " + source + ": " +
                             where + name +
                             " is not a member it writes (a damaged trainer_state.json: resume from another "
                             "checkpoint)");
        }
        if (value.is_object() && known->is_object()) {
            refuse_unexpected_members(value, *known, where + name + ".", source);
        }
    }
}

json get_or(const json& object, const char* key, json fallback) {
    const auto found = object.is_object() ? object.find(key) : object.end();
    return (object.is_object() && found != object.end()) ? *found : std::move(fallback);
}

std::int64_t positive_save_total_limit(const json& value) {
    try {
        return python::to_int(value);
    } catch (const ValueError&) {
        throw ValueError("checkpoint evaluation save_total_limit must be positive");
    }
}

// The settings a checkpoint's saved args hold, or nothing when they cannot be read (the seed's
// own checks in load_state_dict then judge the state).
std::optional<PolicySettings> saved_settings(const json& args) {
    try {
        return CheckpointEvaluationPolicy::from_loose_settings(get_or(args, "patience", 3),
                                                               get_or(args, "tie_policy", "reset"),
                                                               get_or(args, "patience_start_step", 0))
            .settings();
    } catch (const ValueError&) {
        return std::nullopt;
    }
}

}  // namespace

void TriggerCallback::refuse_changed_settings(const json& saved_args, std::int64_t checkpoint_step) const {
    const auto saved = saved_settings(saved_args);
    const auto& now = policy_.settings();
    if (!saved || *saved == now) {
        return;
    }
    const auto describe = [](const PolicySettings& s) {
        return "patience=" + std::to_string(s.patience) +
               ", tie_policy=" + std::string(to_string(s.tie_policy)) +
               ", patience_start_step=" + std::to_string(s.patience_start_step);
    };
    std::string changed;
    const auto note = [&changed](bool differs, const char* name) {
        if (differs) {
            changed += (changed.empty() ? "" : ", ") + std::string(name);
        }
    };
    note(saved->patience != now.patience, "patience");
    note(saved->tie_policy != now.tie_policy, mutants::is_active(mutants::Mutant::refusal_misnames_setting)
                                                  ? "patience_start_step"
                                                  : "tie_policy");
    note(saved->patience_start_step != now.patience_start_step, "patience_start_step");
    throw ValueError("checkpoint evaluation cannot resume from checkpoint-" +
                     std::to_string(checkpoint_step) + " with a changed " + changed + ": it was saved with " +
                     describe(*saved) + ", this run is configured with " + describe(now) +
                     "; resume with the saved settings, or start in a fresh output_dir to use the new ones");
}

json TriggerCallback::state() const {
    const auto& settings = policy_.settings();
    JsonObject attributes;
    attributes.add("pending_checkpoint_evaluation", pending_checkpoint_evaluation_)
        .add("trigger_count", trigger_count_)
        .add("checkpoint_eval_state", policy_.state_dict());
    if (mutants::is_active(mutants::Mutant::pending_save_persisted) && pending_save_step_) {
        attributes.add("pending_checkpoint_save_step", *pending_save_step_);
    }
    auto args =
        JsonObject()
            .add("enabled", config_.enabled)
            .add("patience", settings.patience)
            .add("tie_policy", to_string(settings.tie_policy))
            .add("patience_start_step", settings.patience_start_step)
            .add("gate_steps", config_.gate_steps)
            .add("regular_steps", config_.regular_steps ? json(*config_.regular_steps) : json(nullptr))
            .add("save_total_limit", config_.save_total_limit)
            .add("output_dir", config_.output_dir ? json(*config_.output_dir) : json(nullptr))
            .build();
    return JsonObject().add("args", std::move(args)).add("attributes", attributes.build()).build();
}

TriggerCallback TriggerCallback::from_state(const json& state, FileSystem& fs, Collective& collective,
                                            std::string temp_file_tag) {
    const json& args = member_or_empty(state, "args");
    const json& attributes = member_or_empty(state, "attributes");

    TriggerCallbackConfig config;
    config.enabled = python::truthy(get_or(args, "enabled", true));
    config.policy = CheckpointEvaluationPolicy::from_loose_settings(get_or(args, "patience", 3),
                                                                    get_or(args, "tie_policy", "reset"),
                                                                    get_or(args, "patience_start_step", 0))
                        .settings();
    if (const auto gates = get_or(args, "gate_steps", nullptr); !gates.is_null()) {
        if (!gates.is_array()) {
            throw ValueError("checkpoint evaluation gate_steps must contain positive integers");
        }
        for (const auto& step : gates) {
            config.gate_steps.push_back(python::to_int(step));
        }
    }
    if (const auto regular = get_or(args, "regular_steps", nullptr); !regular.is_null()) {
        config.regular_steps = python::to_int(regular);
    }
    config.save_total_limit = positive_save_total_limit(get_or(args, "save_total_limit", 1));
    if (const auto output_dir = get_or(args, "output_dir", nullptr); !output_dir.is_null()) {
        config.output_dir = python::str(output_dir);
    }

    config.temp_file_tag = std::move(temp_file_tag);
    TriggerCallback callback(std::move(config), fs, collective);
    callback.refuse_unwritten_members(state, "its checkpoint");
    callback.apply_saved_attributes(attributes);
    return callback;
}

void TriggerCallback::apply_saved_attributes(const json& attributes) {
    pending_checkpoint_evaluation_ =
        python::truthy(get_or(attributes, "pending_checkpoint_evaluation", false));
    trigger_count_ = python::to_int(get_or(attributes, "trigger_count", 0));
    if (const auto found = attributes.find("checkpoint_eval_state"); found != attributes.end()) {
        policy_.load_state_dict(*found);
    }
    if (mutants::is_active(mutants::Mutant::pending_save_persisted)) {
        if (const auto step = attributes.find("pending_checkpoint_save_step"); step != attributes.end()) {
            pending_save_step_ = python::to_int(*step);
        }
    }
    policy_stop_requested_ = policy_.state().stop_requested;
    state_restored_ = true;
}

void TriggerCallback::refuse_unwritten_members(const json& saved, const std::string& source) const {
    if (!saved.is_object()) {
        return;
    }
    // state() writes the same members in every configuration (null ones too): only its keys are
    // read, so one state(), taken once, serves every restore.
    static const json written = [this] {
        json members = state();
        members["attributes"].erase("pending_checkpoint_save_step");
        return members;
    }();
    static const json written_with_pending_step = [] {
        json members = written;
        members["attributes"]["pending_checkpoint_save_step"] = nullptr;  // that bug writes it when pending
        return members;
    }();
    refuse_unexpected_members(
        saved,
        mutants::is_active(mutants::Mutant::pending_save_persisted) ? written_with_pending_step : written, "",
        source);
}

void TriggerCallback::restore_own_state_from_checkpoint(std::int64_t global_step) {
    if (state_restored_ || global_step <= 0 || !config_.output_dir ||
        mutants::is_active(mutants::Mutant::callback_state_left_to_trainer)) {
        return;
    }
    const auto path =
        join_path(join_path(*config_.output_dir, checkpoint_dir_name(global_step)), kTrainerStateName);
    FileBytes bytes;
    try {
        bytes = fs_->read_bytes(path);
    } catch (const FileSystemError&) {
        return;  // the trainer itself failed or will fail this resume; the sidecar still applies
    }
    const auto saved = find_saved_trigger_callback_in_file(bytes);  // only stateful_callbacks is parsed
    if (!saved || !saved->state.is_object()) {
        // Transformers loaded this file, so a text this port cannot read (a number beyond a double,
        // which Python reads as inf) must not pass for a checkpoint without this callback's state:
        // a fresh state would reset the counts the checkpoint holds.
        if (!probe_global_step(bytes)) {
            throw ValueError("checkpoint evaluation cannot restore its state from " + path +
                             ": it is not a valid trainer_state.json");
        }
        return;  // a checkpoint without this callback's state: start as configured, as Transformers
    }
    refuse_unwritten_members(saved->state, path);
    // The user's current arguments stay; the attributes are the checkpoint's, so they must have
    // been counted under the same settings.
    refuse_changed_settings(member_or_empty(saved->state, "args"), global_step);
    apply_saved_attributes(member_or_empty(saved->state, "attributes"));
}

}  // namespace ckpt
