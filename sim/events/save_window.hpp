// The save window, owned by the world: from the first rotation (rank 0's, or under
// save_on_each_node any node's) to the commit that follows (the
// end of its on_save, or, when a crash or an error cut the commit short, the recovery in the
// next on_train_begin). The seed's design may leave final_checkpoint dangling here (DESIGN.md,
// P4). It outlives incarnations, because an interrupted window stays open across a crash.
#pragma once

#include "sim/events/event.hpp"

namespace ckpt::sim {

class SaveWindow {
  public:
    bool open() const noexcept { return open_; }
    // Rank 0 is inside the callback's on_save, after its barrier: every rank's files must exist.
    bool in_on_save() const noexcept { return in_on_save_; }

    // on_save belongs to one incarnation: a crash inside it leaves the next one outside.
    void on(const IncarnationBegan&) noexcept { in_on_save_ = false; }
    void on(const RotationStarted&) noexcept { open_ = true; }
    void on(const TrainBegan&) noexcept { open_ = false; }  // recovery republished what was left
    // Any rank entering on_save sets the flag, as the trainer always has: only rank 0 raises it.
    void on(const SaveCallbackStarted& e) noexcept { in_on_save_ = e.rank == 0; }
    void on(const SaveCallbackReturned&) noexcept {
        in_on_save_ = false;
        open_ = false;
    }
    void on(const auto&) noexcept {}

  private:
    bool open_ = false;
    bool in_on_save_ = false;
};

}  // namespace ckpt::sim
