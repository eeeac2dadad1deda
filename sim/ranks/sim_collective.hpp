// SimCollective: the Collective port (barrier, broadcast) over the rank scheduler, so the real
// trigger callback's distributed code runs unchanged in the simulator. Depends on policy/ports
// and the scheduler.
#pragma once

#include <nlohmann/json.hpp>

#include "policy/ports/collective.hpp"
#include "sim/ranks/rank_scheduler.hpp"

namespace ckpt::sim {

// One rank's view of the simulated process group: the Collective port the real trigger callback runs against.
// barrier() and broadcast() block this rank's fiber until every rank of the world has entered the same
// collective; a collective that some rank can never enter is reported by the scheduler as a hang.
class SimCollective final : public ckpt::Collective {
  public:
    SimCollective(RankScheduler& scheduler, int rank);

    int rank() const override { return rank_; }
    int world_size() const override { return world_size_; }
    void barrier() override;
    SharedJson broadcast(nlohmann::json value, int src) override;

    // Names the trainer hook this rank's next collectives belong to, so a hang report says "on_save" and not
    // just "broadcast #12". Kept as a pointer so setting it on every hook costs nothing; it must outlive the
    // run, which a string literal does.
    void set_waiting_point(const char* label) noexcept { label_ = label == nullptr ? "" : label; }
    const char* waiting_point() const noexcept { return label_; }

  private:
    RankScheduler* scheduler_;
    int rank_;
    int world_size_;
    const char* label_ = "";
};

}  // namespace ckpt::sim
