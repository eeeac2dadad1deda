#pragma once

// Output directories in the exact formats the seed's Python writes, for `ckptsim inspect`
// tests: trainer_state.json as Transformers' TrainerState.save_to_json writes it
// (json.dumps(indent=2, sort_keys=True)) with the callback under stateful_callbacks, and the
// sidecar as CheckpointEvaluationTriggerCallback.persist writes it (indent=2, sort_keys, "\n").
// The JSON is spelled out here rather than produced by our own code, so a format drift in
// our writer cannot hide a reader bug.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policy/output_dir/model_weights.hpp"
#include "policy/ports/file_system.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "policy/tests/support/temp_dir.hpp"

namespace ckpt::testing {

// The policy numbers that vary between fixtures. Scores are written with Python's float repr,
// so pass them as the text Python would print ("0.6", "1.0").
struct SeedPolicy {
    std::string best_score = "null";
    std::string best_step = "null";
    int lower_score_streak = 0;
    int evaluation_count = 0;
    bool stop_requested = false;
    bool best_is_external = false;
    int patience = 3;
};

inline std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

inline std::string boolean(bool value) {
    return value ? "true" : "false";
}

// CheckpointEvaluationPolicy.state_dict(), indented to sit at `indent` spaces.
inline std::string seed_policy_state(const SeedPolicy& policy, int indent) {
    std::string text = R"({
  "patience": @PATIENCE,
  "patience_start_step": 0,
  "state": {
    "best_is_external": @EXTERNAL,
    "best_score": @BEST_SCORE,
    "best_step": @BEST_STEP,
    "evaluation_count": @COUNT,
    "lower_score_streak": @STREAK,
    "stop_requested": @STOP
  },
  "tie_policy": "reset",
  "version": 1
})";
    text = replace_all(text, "@PATIENCE", std::to_string(policy.patience));
    text = replace_all(text, "@EXTERNAL", boolean(policy.best_is_external));
    text = replace_all(text, "@BEST_SCORE", policy.best_score);
    text = replace_all(text, "@BEST_STEP", policy.best_step);
    text = replace_all(text, "@COUNT", std::to_string(policy.evaluation_count));
    text = replace_all(text, "@STREAK", std::to_string(policy.lower_score_streak));
    text = replace_all(text, "@STOP", boolean(policy.stop_requested));
    return replace_all(text, "\n", "\n" + std::string(static_cast<std::size_t>(indent), ' '));
}

// checkpoint_eval_state.json as persist() writes it.
inline std::string seed_sidecar(const SeedPolicy& policy) {
    return "{\n  \"checkpoint_eval_state\": " + seed_policy_state(policy, 2) + ",\n  \"version\": 1\n}\n";
}

// The callback's state() as Transformers stores it under stateful_callbacks, either as one
// object or, when `as_list`, as the one-element list Transformers writes for shared classes.
inline std::string seed_callback_state(const SeedPolicy& policy, const std::string& output_dir,
                                       bool as_list) {
    std::string text = R"({
  "args": {
    "enabled": true,
    "gate_steps": [],
    "output_dir": "@OUTPUT_DIR",
    "patience": @PATIENCE,
    "patience_start_step": 0,
    "regular_steps": 10,
    "save_total_limit": 1,
    "tie_policy": "reset"
  },
  "attributes": {
    "checkpoint_eval_state": @POLICY,
    "pending_checkpoint_evaluation": false,
    "trigger_count": @COUNT
  }
})";
    text = replace_all(text, "@OUTPUT_DIR", output_dir);
    text = replace_all(text, "@PATIENCE", std::to_string(policy.patience));
    text = replace_all(text, "@COUNT", std::to_string(policy.evaluation_count));
    text = replace_all(text, "@POLICY", seed_policy_state(policy, 4));
    if (as_list) {
        return "[\n  " + replace_all(text, "\n", "\n  ") + "\n]";
    }
    return text;
}

// checkpoint-N/trainer_state.json with TrainerControl and, unless `callback` is empty, the
// trigger callback under stateful_callbacks (text from seed_callback_state).
inline std::string seed_trainer_state(std::int64_t step, const std::string& callback) {
    std::string text = R"({
  "best_metric": null,
  "best_model_checkpoint": null,
  "epoch": 0.2,
  "eval_steps": 500,
  "global_step": @STEP,
  "is_hyper_param_search": false,
  "is_local_process_zero": true,
  "is_world_process_zero": true,
  "log_history": [],
  "logging_steps": 500,
  "max_steps": 1000,
  "num_input_tokens_seen": 0,
  "num_train_epochs": 1,
  "save_steps": 10,
  "stateful_callbacks": {@CALLBACK
    "TrainerControl": {
      "args": {
        "should_epoch_stop": false,
        "should_evaluate": false,
        "should_log": false,
        "should_save": true,
        "should_training_stop": false
      },
      "attributes": {}
    }
  },
  "total_flos": 0.0,
  "train_batch_size": 8,
  "trial_name": null,
  "trial_params": null
}
)";
    text = replace_all(text, "@STEP", std::to_string(step));
    const std::string entry =
        callback.empty()
            ? ""
            : "\n    \"CheckpointEvaluationTriggerCallback\": " + replace_all(callback, "\n", "\n    ") + ",";
    return replace_all(text, "@CALLBACK", entry);
}

// A trainer_state.json from a Transformers release before stateful callbacks (no such key).
inline std::string pre_stateful_trainer_state(std::int64_t step) {
    return "{\n  \"epoch\": 0.2,\n  \"global_step\": " + std::to_string(step) +
           ",\n  \"log_history\": [],\n  \"max_steps\": 1000,\n  \"total_flos\": 0.0\n}\n";
}

// A fresh temp directory holding `run/`, the output directory under test; removed afterwards.
class SeedOutputDir {
  public:
    SeedOutputDir() { fs_.mkdir(dir_); }

    const std::string& path() const { return dir_; }
    const std::string& scratch() const { return root_.path(); }
    std::string at(std::string_view name) const { return join_path(dir_, name); }
    PosixFileSystem& fs() { return fs_; }

    // checkpoint-N with its weights and, when given, trainer_state.json written last.
    void checkpoint(std::int64_t step, const std::optional<std::string>& trainer_state) {
        const auto directory = at("checkpoint-" + std::to_string(step));
        fs_.mkdir(directory);
        fs_.write_file(join_path(directory, "model.safetensors"), safetensors_without_tensors("weights"));
        if (trainer_state) {
            fs_.write_file(join_path(directory, "trainer_state.json"), *trainer_state);
        }
    }
    // A complete checkpoint whose trigger callback holds `policy`.
    void committed_checkpoint(std::int64_t step, const SeedPolicy& policy, bool as_list = false) {
        checkpoint(step, seed_trainer_state(step, seed_callback_state(policy, dir_, as_list)));
    }
    void sidecar(const SeedPolicy& policy) {
        fs_.write_file(at("checkpoint_eval_state.json"), seed_sidecar(policy));
    }
    void link(const std::string& target) { fs_.symlink(target, at("final_checkpoint")); }

  private:
    TempDir root_{"ckptsim-inspect"};
    std::string dir_ = root_.at("run");
    PosixFileSystem fs_;
};

}  // namespace ckpt::testing
