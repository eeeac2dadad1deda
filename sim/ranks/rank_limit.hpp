// The largest world the simulator runs: ranks are tracked in fixed arrays and bit masks sized by it.
// Kept apart from the scheduler so the scenario vocabulary and the swarm can bound rank counts and
// rank indices without depending on the fiber machinery.
#pragma once

namespace ckpt::sim {

// Runnable ranks are tracked in a bit mask and offered to the chooser from a fixed array, so the scheduling
// path never allocates; eight covers every topology the scenarios draw.
inline constexpr int kMaxRanks = 8;

}  // namespace ckpt::sim
