#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/rng.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/crash_point.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

struct JobContext;

// A job-level crash the simulator injected: the scheduler unwinds every rank, then the
// simulation applies `kind` to the disk (a process kill keeps the page cache, a power loss
// keeps what `power_loss` says) and resumes the job.
class SimulatedCrash final : public JobCrash {
  public:
    SimulatedCrash(std::string reason, CrashKind kind, PowerLossMode power_loss)
        : JobCrash(std::move(reason)), kind_(kind), power_loss_(power_loss) {}
    CrashKind kind() const noexcept { return kind_; }
    PowerLossMode power_loss() const noexcept { return power_loss_; }

  private:
    CrashKind kind_;
    PowerLossMode power_loss_;
};

// Fires the scenario's planned faults. Each planned fault fires at most once over the whole run,
// so every crash is followed by progress and a run always ends. Crash points are counted per
// rank; the trainer passes its own points, and the file-system hooks recognise the points that
// lie inside the callback's sidecar and link writes.
class FaultInjector {
  public:
    FaultInjector(const Scenario& scenario, Rng rng);

    // Binds to the running incarnation (nullptr between incarnations).
    void attach(JobContext* job) noexcept;

    // The trainer passes a named point on `rank`; may throw SimulatedCrash or kill the rank.
    void pass(CrashPoint point, int rank);
    // Step-triggered faults (rank death, preemption, corruption at rest).
    void at_step_end(std::int64_t global_step, int rank);

    // SimFileSystem hooks.
    void observe(const FsOperation& operation);
    Fault io_fault(const FsOperation& operation);

    // Whether an I/O error fired in the current incarnation: it explains a job that failed.
    bool io_error_fired() const noexcept { return io_error_fired_; }

  private:
    struct PlanState {
        bool fired = false;
        std::uint32_t seen = 0;
    };

    void fire_crash(std::size_t index, CrashPoint point);
    void fire_step_fault(std::size_t index, int rank);
    void corrupt_until_unreadable(const std::string& path);
    bool io_target_matches(IoTarget target, const FsOperation& operation, bool after_callback_rename) const;
    void refresh_next_step_fault() noexcept;

    const Scenario& scenario_;
    Rng rng_;
    JobContext* job_ = nullptr;
    std::vector<PlanState> plan_;
    std::array<std::array<std::uint64_t, kMaxRanks>, kCrashPointCount> passes_{};
    std::uint32_t armed_points_ = 0;  // bit per crash point with an unfired crash planned
    std::int64_t next_step_fault_ = INT64_MAX;
    bool has_io_faults_ = false;
    bool io_error_fired_ = false;
    bool link_published_since_sidecar_ = false;
    bool sidecar_renamed_ = false;
    bool callback_rename_pending_ = false;  // a sidecar or link rename awaits its directory fsync
    // Paths the hooks recognise, built once.
    std::string sidecar_path_;
    std::string link_path_;
    std::string link_temp_path_;
    std::string sidecar_temp_prefix_;
    std::string output_dir_;
};

}  // namespace ckpt::sim
