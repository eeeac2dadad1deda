#pragma once

// Shared by the TriggerCallback test files: the two FileSystem backends every behaviour runs on
// (file_system_backends.hpp), test doubles for the ports, a writer for checkpoint directories in
// Transformers' layout, and the fixture the test files derive theirs from.

#include <cerrno>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/callbacks/trainer_control.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/model_weights.hpp"
#include "policy/ports/collective.hpp"
#include "policy/tests/support/file_system_backends.hpp"
#include "policy/trigger/evaluation_round.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt::testing {

// The names every TriggerCallback test file uses.
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Forwards every call to another FileSystem, first showing it to observe() as the operation
// and its path (a rename as "from -> to", a symlink as "target <- link"). The test doubles
// below differ only in what they do with a call.
class ObservedFileSystem : public FileSystem {
  public:
    explicit ObservedFileSystem(FileSystem& inner) : inner_(inner) {}

    std::string read_file(const std::string& path) override {
        observe("read_file", path);
        return inner_.read_file(path);
    }
    void write_file(const std::string& path, std::string_view data) override {
        observe("write_file", path);
        inner_.write_file(path, data);
    }
    void fsync_file(const std::string& path) override {
        observe("fsync_file", path);
        inner_.fsync_file(path);
    }
    void fsync_dir(const std::string& path) override {
        observe("fsync_dir", path);
        inner_.fsync_dir(path);
    }
    void rename(const std::string& from, const std::string& to) override {
        observe("rename", from + " -> " + to);
        inner_.rename(from, to);
    }
    void unlink(const std::string& path) override {
        observe("unlink", path);
        inner_.unlink(path);
    }
    void mkdir(const std::string& path) override {
        observe("mkdir", path);
        inner_.mkdir(path);
    }
    void remove_tree(const std::string& path) override {
        observe("remove_tree", path);
        inner_.remove_tree(path);
    }
    std::vector<std::string> list_dir(const std::string& path) override {
        observe("list_dir", path);
        return inner_.list_dir(path);
    }
    bool exists(const std::string& path) override {
        observe("exists", path);
        return inner_.exists(path);
    }
    bool is_dir(const std::string& path) override {
        observe("is_dir", path);
        return inner_.is_dir(path);
    }
    bool is_symlink(const std::string& path) override {
        observe("is_symlink", path);
        return inner_.is_symlink(path);
    }
    void symlink(const std::string& target, const std::string& link_path) override {
        observe("symlink", target + " <- " + link_path);
        inner_.symlink(target, link_path);
    }
    std::string readlink(const std::string& path) override {
        observe("readlink", path);
        return inner_.readlink(path);
    }

  protected:
    virtual void observe(const char* operation, const std::string& path) = 0;

  private:
    FileSystem& inner_;
};

// Forwards to another FileSystem and logs every call as "<operation> <path>", so a test can
// check the order of a commit (temp write, fsync, rename, directory fsync).
class RecordingFileSystem final : public ObservedFileSystem {
  public:
    using ObservedFileSystem::ObservedFileSystem;

    std::vector<std::string> calls;

    // The calls whose operation is one of `operations`, in order.
    std::vector<std::string> only(std::initializer_list<std::string_view> operations) const {
        std::vector<std::string> kept;
        for (const auto& call : calls) {
            for (const auto operation : operations) {
                if (call.rfind(std::string(operation) + " ", 0) == 0) {
                    kept.push_back(call);
                }
            }
        }
        return kept;
    }

  private:
    void observe(const char* operation, const std::string& path) override {
        calls.push_back(std::string(operation) + " " + path);
    }
};

// Fails the test on any call: a non-zero rank must never read or write the sidecar or the link.
class ForbiddenFileSystem final : public ObservedFileSystem {
  public:
    ForbiddenFileSystem() : ObservedFileSystem(unreachable()) {}

  private:
    void observe(const char* operation, const std::string& path) override {
        ADD_FAILURE() << "a non-zero rank touched the file system: " << operation << " " << path;
        throw FileSystemError(operation, path, EPERM);
    }
    // Where calls would be forwarded, were observe() not to refuse every one first.
    static FileSystem& unreachable() {
        static InMemoryFileSystem nowhere;
        return nowhere;
    }
};

// Rank 0 of one process that logs its collectives, to check that on_save waits in the barrier
// before the rank-zero publication is broadcast.
class RecordingCollective final : public Collective {
  public:
    std::vector<std::string> calls;

    int rank() const override { return 0; }
    int world_size() const override { return 1; }
    void barrier() override { calls.emplace_back("barrier"); }
    SharedJson broadcast(nlohmann::json value, int src) override {
        calls.push_back("broadcast from " + std::to_string(src));
        return share_json(std::move(value));
    }
};

// Rank 1 of two. It receives, from each broadcast, the next scripted rank-zero outcome, and checks
// that it contributed nothing itself (only rank 0's value travels).
class ScriptedRankOneCollective final : public Collective {
  public:
    std::deque<nlohmann::json> rank_zero_outcomes;
    int barriers = 0;
    int broadcasts = 0;

    int rank() const override { return 1; }
    int world_size() const override { return 2; }
    void barrier() override { barriers += 1; }
    SharedJson broadcast(nlohmann::json value, int src) override {
        broadcasts += 1;
        EXPECT_EQ(src, 0);
        EXPECT_TRUE(value.is_null()) << "rank 1 sent " << value.dump();
        if (rank_zero_outcomes.empty()) {
            ADD_FAILURE() << "no scripted rank-zero outcome left";
            return share_json(nullptr);
        }
        auto next = std::move(rank_zero_outcomes.front());
        rank_zero_outcomes.pop_front();
        return share_json(std::move(next));
    }
};

// Writes output_dir/checkpoint-<step> as Transformers' _save_checkpoint leaves it, with
// trainer_state.json (written last) holding `global_step` and the stateful callbacks: the
// trigger callback's state() when given, under its class name, beside TrainerControl.
inline void write_checkpoint(FileSystem& fs, const std::string& output_dir, std::int64_t step,
                             const std::optional<nlohmann::json>& trigger_state = std::nullopt) {
    const auto directory = join_path(output_dir, checkpoint_dir_name(step));
    make_dirs(fs, directory);
    fs.write_file(join_path(directory, "model.safetensors"),
                  safetensors_without_tensors("weights@" + std::to_string(step)));
    nlohmann::json callbacks = {{"TrainerControl", TrainerControl{}.state()}};
    if (trigger_state) {
        callbacks[std::string(kTriggerCallbackClass)] = *trigger_state;
    }
    const nlohmann::json trainer_state = {
        {"global_step", step},
        {"epoch", 1.0},
        {"log_history", nlohmann::json::array()},
        {"stateful_callbacks", callbacks},
    };
    fs.write_file(join_path(directory, kTrainerStateName), trainer_state.dump(2) + "\n");
}

// A native save request (DefaultFlowCallback's should_save, from save_steps or
// save_strategy="epoch") passed through on_step_end or on_epoch_end at `step`: the control the
// Trainer acts on afterwards.
inline TrainerControl native_save_at_step_end(TriggerCallback& callback, std::int64_t step) {
    TrainerControl control;
    control.should_save = true;
    callback.on_step_end({.global_step = step}, control);
    return control;
}
inline TrainerControl native_save_at_epoch_end(TriggerCallback& callback, std::int64_t step) {
    TrainerControl control;
    control.should_save = true;
    callback.on_epoch_end({.global_step = step}, control);
    return control;
}

// Feeds `scores` to `policy` as the evaluations at steps 10, 20, ...
inline void observe_every_ten_steps(CheckpointEvaluationPolicy& policy,
                                    std::initializer_list<double> scores) {
    std::int64_t step = 0;
    for (const double score : scores) {
        policy.observe(score, step += 10);
    }
}

// The shape of a fixture test: one backend, and a callback configuration rooted in it.
template <typename Backend>
class TriggerCallbackTest : public ::testing::Test {
  protected:
    FileSystem& fs() { return backend_.fs; }
    const std::string& root() const { return backend_.root; }
    std::string at(std::string_view name) const { return join_path(backend_.root, name); }
    std::string sidecar_path() const { return at(kSidecarName); }
    std::string link_path() const { return at(kFinalCheckpointLink); }

    TriggerCallbackConfig config() const {
        TriggerCallbackConfig config;
        config.output_dir = backend_.root;
        return config;
    }

    nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(fs().read_file(path)); }
    // The sidecar as persist() writes it: indented JSON ended by a newline.
    void write_sidecar(const nlohmann::json& payload) {
        fs().write_file(sidecar_path(), payload.dump(2) + "\n");
    }

    // A callback on this backend and the single-process collective.
    TriggerCallback make(TriggerCallbackConfig config) {
        return TriggerCallback(std::move(config), fs(), collective_);
    }
    TriggerCallback make() { return make(config()); }
    // A callback restored from its ExportableState on this backend.
    TriggerCallback from_state(const nlohmann::json& state) {
        return TriggerCallback::from_state(state, fs(), collective_);
    }

    // What the Trainer does at the end of `step`: the callback's on_step_end, then the save-time
    // evaluation it requested (scored `score`) and the native save the decision allows. Returns
    // the control after on_step_end.
    TrainerControl train_save_event(TriggerCallback& callback, std::int64_t step, double score) {
        TrainerControl control;
        callback.on_step_end({.global_step = step}, control);
        const TrainerControl after_step_end = control;
        if (callback.consume_checkpoint_evaluation()) {
            EvaluationRoundObserver quiet;
            run_checkpoint_evaluation_round(collective_, callback, control, score, step, quiet);
        }
        if (control.should_save) {
            write_checkpoint(fs(), root(), step, callback.state());
            callback.on_save({.global_step = step}, control);
        }
        return after_step_end;
    }

    // The callback's state() after it observed `scores` at steps 10, 20, ...: what a resumed
    // Trainer rebuilds from a checkpoint's trainer_state.json.
    nlohmann::json callback_state_after(std::initializer_list<double> scores) {
        auto callback = make();
        observe_every_ten_steps(callback.policy(), scores);
        return callback.state();
    }

    // Names in the output directory that an atomic write left behind.
    std::vector<std::string> temp_files() {
        std::vector<std::string> found;
        for (const auto& name : fs().list_dir(root())) {
            if (name.rfind(kSidecarTempPrefix, 0) == 0 || name.rfind(kLinkTempName, 0) == 0) {
                found.push_back(name);
            }
        }
        return found;
    }

    SingleProcessCollective collective_;

  private:
    Backend backend_;
};

}  // namespace ckpt::testing
