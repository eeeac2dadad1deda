#pragma once

// Shared by the TriggerCallback test files: the two FileSystem backends every behaviour runs on,
// test doubles for the ports, and a writer for checkpoint directories in Transformers' layout.

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/checkpoint_layout.hpp"
#include "policy/collective.hpp"
#include "policy/posix_file_system.hpp"
#include "policy/tests/in_memory_file_system.hpp"
#include "policy/trainer_control.hpp"
#include "policy/trigger_callback.hpp"

namespace ckpt::testing {

// A fresh mkdtemp directory per test, removed afterwards.
struct PosixBackend {
    PosixFileSystem fs;
    std::string root;

    PosixBackend() {
        std::string pattern = (std::filesystem::temp_directory_path() / "ckptsim-cb-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw FileSystemError("mkdtemp", pattern, errno);
        }
        root = pattern;
    }
    ~PosixBackend() {
        try {
            fs.remove_tree(root);
        } catch (const FileSystemError&) {
            // A failed clean-up must not hide the test's own verdict.
        }
    }
    PosixBackend(const PosixBackend&) = delete;
    PosixBackend& operator=(const PosixBackend&) = delete;
};

struct InMemoryBackend {
    InMemoryFileSystem fs;
    std::string root = "/scratch/run";

    InMemoryBackend() { make_dirs(fs, root); }
};

struct BackendNames {
    template <typename Backend>
    static std::string GetName(int) {
        return std::is_same_v<Backend, PosixBackend> ? "Posix" : "InMemory";
    }
};

using Backends = ::testing::Types<PosixBackend, InMemoryBackend>;

// Forwards to another FileSystem and logs every call as "<operation> <path>", so a test can
// check the order of a commit (temp write, fsync, rename, directory fsync).
class RecordingFileSystem final : public FileSystem {
  public:
    explicit RecordingFileSystem(FileSystem& inner) : inner_(inner) {}

    std::vector<std::string> calls;

    std::string read_file(const std::string& path) override {
        log("read_file", path);
        return inner_.read_file(path);
    }
    void write_file(const std::string& path, std::string_view data) override {
        log("write_file", path);
        inner_.write_file(path, data);
    }
    void fsync_file(const std::string& path) override {
        log("fsync_file", path);
        inner_.fsync_file(path);
    }
    void fsync_dir(const std::string& path) override {
        log("fsync_dir", path);
        inner_.fsync_dir(path);
    }
    void rename(const std::string& from, const std::string& to) override {
        log("rename", from + " -> " + to);
        inner_.rename(from, to);
    }
    void unlink(const std::string& path) override {
        log("unlink", path);
        inner_.unlink(path);
    }
    void mkdir(const std::string& path) override {
        log("mkdir", path);
        inner_.mkdir(path);
    }
    void remove_tree(const std::string& path) override {
        log("remove_tree", path);
        inner_.remove_tree(path);
    }
    std::vector<std::string> list_dir(const std::string& path) override {
        log("list_dir", path);
        return inner_.list_dir(path);
    }
    bool exists(const std::string& path) override {
        log("exists", path);
        return inner_.exists(path);
    }
    bool is_dir(const std::string& path) override {
        log("is_dir", path);
        return inner_.is_dir(path);
    }
    bool is_symlink(const std::string& path) override {
        log("is_symlink", path);
        return inner_.is_symlink(path);
    }
    void symlink(const std::string& target, const std::string& link_path) override {
        log("symlink", target + " <- " + link_path);
        inner_.symlink(target, link_path);
    }
    std::string readlink(const std::string& path) override {
        log("readlink", path);
        return inner_.readlink(path);
    }

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
    void log(const char* operation, const std::string& path) {
        calls.push_back(std::string(operation) + " " + path);
    }
    FileSystem& inner_;
};

// Fails the test on any call: a non-zero rank must never read or write the sidecar or the link.
class ForbiddenFileSystem final : public FileSystem {
  public:
    std::string read_file(const std::string& path) override { refuse("read_file", path); }
    void write_file(const std::string& path, std::string_view) override { refuse("write_file", path); }
    void fsync_file(const std::string& path) override { refuse("fsync_file", path); }
    void fsync_dir(const std::string& path) override { refuse("fsync_dir", path); }
    void rename(const std::string& from, const std::string&) override { refuse("rename", from); }
    void unlink(const std::string& path) override { refuse("unlink", path); }
    void mkdir(const std::string& path) override { refuse("mkdir", path); }
    void remove_tree(const std::string& path) override { refuse("remove_tree", path); }
    std::vector<std::string> list_dir(const std::string& path) override { refuse("list_dir", path); }
    bool exists(const std::string& path) override { refuse("exists", path); }
    bool is_dir(const std::string& path) override { refuse("is_dir", path); }
    bool is_symlink(const std::string& path) override { refuse("is_symlink", path); }
    void symlink(const std::string&, const std::string& link_path) override { refuse("symlink", link_path); }
    std::string readlink(const std::string& path) override { refuse("readlink", path); }

  private:
    [[noreturn]] static void refuse(const char* operation, const std::string& path) {
        ADD_FAILURE() << "a non-zero rank touched the file system: " << operation << " " << path;
        throw FileSystemError(operation, path, EPERM);
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
    nlohmann::json broadcast(nlohmann::json value, int src) override {
        calls.push_back("broadcast from " + std::to_string(src));
        return value;
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
    nlohmann::json broadcast(nlohmann::json value, int src) override {
        broadcasts += 1;
        EXPECT_EQ(src, 0);
        EXPECT_TRUE(value.is_null()) << "rank 1 sent " << value.dump();
        if (rank_zero_outcomes.empty()) {
            ADD_FAILURE() << "no scripted rank-zero outcome left";
            return nullptr;
        }
        auto next = std::move(rank_zero_outcomes.front());
        rank_zero_outcomes.pop_front();
        return next;
    }
};

// Writes output_dir/checkpoint-<step> as Transformers' _save_checkpoint leaves it, with
// trainer_state.json (written last) holding `global_step` and the stateful callbacks: the
// trigger callback's state() when given, under its class name, beside TrainerControl.
inline void write_checkpoint(FileSystem& fs, const std::string& output_dir, std::int64_t step,
                             const std::optional<nlohmann::json>& trigger_state = std::nullopt) {
    const auto directory = join_path(output_dir, checkpoint_dir_name(step));
    make_dirs(fs, directory);
    fs.write_file(join_path(directory, "model.safetensors"), "weights@" + std::to_string(step));
    nlohmann::json callbacks = {{"TrainerControl", TrainerControl{}.state()}};
    if (trigger_state) {
        callbacks["CheckpointEvaluationTriggerCallback"] = *trigger_state;
    }
    const nlohmann::json trainer_state = {
        {"global_step", step},
        {"epoch", 1.0},
        {"log_history", nlohmann::json::array()},
        {"stateful_callbacks", callbacks},
    };
    fs.write_file(join_path(directory, kTrainerStateName), trainer_state.dump(2) + "\n");
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
