// The sidecar's atomicity against a real SIGKILL on a real directory.
//
// A child process persists policy states in a loop, announcing each state in an intent log
// *before* persisting it. The parent kills it at pseudo-random moments. Whatever instant the
// kill lands on (inside write, before the fsync, between fsync and rename, after the rename),
// the sidecar must be a whole state that was announced, and a fresh callback must restore it
// and remove the temp file the writer left behind.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/callbacks/trainer_control.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/collective.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

constexpr int kKills = 30;
constexpr std::uint32_t kMaxDelayMicros = 3000;

// xorshift32 with a fixed seed: the same kill schedule on every run, and no std:: distributions.
class KillSchedule {
  public:
    std::uint32_t next_delay_micros() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 17;
        state_ ^= state_ << 5;
        return state_ % (kMaxDelayMicros + 1);
    }

  private:
    std::uint32_t state_ = 0x9e3779b9U;
};

TriggerCallbackConfig writer_config(const std::string& output_dir) {
    TriggerCallbackConfig config;
    config.output_dir = output_dir;
    // Patience never runs out, so the writer can observe lower scores forever.
    config.policy.patience = std::int64_t{1} << 40;
    return config;
}

// Writes all of `text` with write(2): unbuffered, so what was written survives the kill.
bool write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const auto written = ::write(fd, text.data() + done, text.size() - done);
        if (written < 0) {
            return false;
        }
        done += static_cast<std::size_t>(written);
    }
    return true;
}

// The child: resume from the sidecar, then observe and persist until killed. Its best is the
// external baseline, so the restore needs no checkpoint directory. Never returns.
[[noreturn]] void run_writer(const std::string& output_dir, const std::string& intent_log) {
    try {
        PosixFileSystem fs;
        SingleProcessCollective collective;
        TriggerCallback callback(writer_config(output_dir), fs, collective);
        TrainerControl control;
        callback.on_train_begin({.output_dir = output_dir}, {.global_step = 0}, control);
        callback.policy().establish_external_baseline(100.0);
        const int log = ::open(intent_log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (log < 0) {
            ::_exit(3);
        }
        for (std::int64_t round = callback.policy().state().evaluation_count;; ++round) {
            // Lower than the baseline, with streaks of different lengths in the file.
            const double score = 10.0 + static_cast<double>(round % 13) * 0.5;
            callback.policy().observe(score, round + 1);
            if (!write_all(log, callback.policy().state_dict().dump() + "\n")) {
                ::_exit(4);
            }
            callback.persist();
        }
    } catch (...) {
        ::_exit(5);
    }
}

// Complete lines of the intent log, each one a state the writer was about to persist.
std::vector<json> announced_states(PosixFileSystem& fs, const std::string& intent_log) {
    std::vector<json> states;
    const auto text = fs.read_file(intent_log);
    std::size_t start = 0;
    for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        states.push_back(json::parse(text.substr(start, end - start)));
        start = end + 1;
    }
    return states;
}

// Waits until the log holds `lines` complete lines. The writer announces state N+1 only after
// persist N returned, so two lines mean one persist is whole: each round then advances the
// sidecar however slow the machine (a loaded sanitizer run once killed every writer before
// its first rename), and the random delay after it still lands anywhere in the next persist.
bool wait_until_lines(PosixFileSystem& fs, const std::string& path, std::size_t lines) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        const auto text = fs.read_file(path);
        if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return false;
}

std::vector<std::string> temp_files(PosixFileSystem& fs, const std::string& output_dir) {
    std::vector<std::string> found;
    for (const auto& name : fs.list_dir(output_dir)) {
        if (name.rfind(kSidecarTempPrefix, 0) == 0) {
            found.push_back(name);
        }
    }
    return found;
}

class SidecarKillTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = (std::filesystem::temp_directory_path() / "ckptsim-kill-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        root_ = pattern;
        output_dir_ = join_path(root_, "run");
        intent_log_ = join_path(root_, "intents.jsonl");
        fs_.mkdir(output_dir_);
    }
    void TearDown() override {
        try {
            fs_.remove_tree(root_);
        } catch (const FileSystemError&) {
            // A failed clean-up must not hide the test's own verdict.
        }
    }

    PosixFileSystem fs_;
    std::string root_;
    std::string output_dir_;
    std::string intent_log_;
};

TEST_F(SidecarKillTest, EveryKillLeavesARestorableAnnouncedState) {
    KillSchedule schedule;
    std::size_t total_announced = 0;
    std::size_t kills_with_temp_left = 0;
    json previous;  // the sidecar's policy state after the last round; null before the first

    for (int kill = 0; kill < kKills; ++kill) {
        fs_.write_file(intent_log_, "");
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            run_writer(output_dir_, intent_log_);
        }
        const bool started = wait_until_lines(fs_, intent_log_, 2);
        ::usleep(schedule.next_delay_micros());
        ::kill(child, SIGKILL);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(started) << "kill " << kill << ": the writer finished no persist in 30 s";
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            << "kill " << kill << ": the writer exited on its own, status " << status;

        // A persist of this round returned before the kill, so an older round's state is wrong.
        const auto candidates = announced_states(fs_, intent_log_);
        total_announced += candidates.size();
        const auto sidecar = join_path(output_dir_, kSidecarName);
        ASSERT_TRUE(fs_.exists(sidecar)) << "kill " << kill << ": no sidecar after a whole persist";
        const auto payload = json::parse(fs_.read_file(sidecar), nullptr, /*allow_exceptions=*/false);
        ASSERT_TRUE(payload.is_object()) << "kill " << kill << ": torn sidecar";
        EXPECT_EQ(payload.size(), 3U);
        EXPECT_EQ(payload.value("version", 0), kSidecarVersion);
        const auto state = payload.value("checkpoint_eval_state", json());
        ASSERT_NE(std::find(candidates.begin(), candidates.end(), state), candidates.end())
            << "kill " << kill << ": the sidecar holds a state that was never announced: " << state.dump();

        kills_with_temp_left += temp_files(fs_, output_dir_).empty() ? 0 : 1;
        SingleProcessCollective collective;
        TriggerCallback fresh(writer_config(output_dir_), fs_, collective);
        TrainerControl control;
        fresh.on_train_begin({.output_dir = output_dir_}, {.global_step = 0}, control);
        EXPECT_EQ(fresh.policy().state_dict(), state) << "kill " << kill;
        EXPECT_TRUE(temp_files(fs_, output_dir_).empty()) << "kill " << kill;
        EXPECT_FALSE(control.should_training_stop);
        previous = state;
    }
    // Every round finished a persist and announced the next, so the loop really wrote while being
    // killed, and the restored count grew by at least one a round.
    EXPECT_GE(total_announced, static_cast<std::size_t>(2 * kKills));
    ASSERT_FALSE(previous.is_null());
    EXPECT_GE(previous["state"]["evaluation_count"].get<std::int64_t>(), kKills);
    RecordProperty("states_announced", static_cast<int>(total_announced));
    RecordProperty("kills_leaving_a_temp_file", static_cast<int>(kills_with_temp_left));
}

}  // namespace
}  // namespace ckpt
