// The run's virtual time, owned by the world and advanced by the work rank 0 reports (a step,
// an evaluation, a checkpoint), so every trace line carries the time after the work it follows.
#pragma once

#include <cstdint>

#include "sim/events/event.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

class VirtualClock {
  public:
    std::int64_t now_ms() const noexcept { return now_ms_; }

    void on(const StepStarted& e) noexcept { advance_on_rank_zero(e.rank, kStepMs); }
    void on(const EvaluationStarted& e) noexcept { advance_on_rank_zero(e.rank, kEvaluationMs); }
    void on(const TrainerEvaluationStarted& e) noexcept { advance_on_rank_zero(e.rank, kEvaluationMs); }
    void on(const CheckpointStarted&) noexcept { now_ms_ += kCheckpointMs; }
    void on(const auto&) noexcept {}

  private:
    void advance_on_rank_zero(int rank, std::int64_t ms) noexcept {
        if (rank == 0) {
            now_ms_ += ms;
        }
    }

    std::int64_t now_ms_ = 0;
};

}  // namespace ckpt::sim
