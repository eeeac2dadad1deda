// A job-level crash the simulator injected: the scheduler unwinds every rank, then the
// simulation applies `kind` to the disk (a process kill keeps the page cache, a power loss
// keeps what `power_loss` says) and resumes the job.
#pragma once

#include <string>
#include <utility>

#include "sim/disk/sim_file_system.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

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

}  // namespace ckpt::sim
