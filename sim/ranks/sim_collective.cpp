// SimCollective's calls forwarded to the scheduler's rendezvous for its rank; a world of one
// only counts them, as no other rank can be waited for.
#include "sim/ranks/sim_collective.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace ckpt::sim {

SimCollective::SimCollective(RankScheduler& scheduler, int rank)
    : scheduler_(&scheduler), rank_(rank), world_size_(scheduler.world_size()) {
    if (rank < 0 || rank >= world_size_) {
        throw std::out_of_range("SimCollective: rank " + std::to_string(rank) + " outside a world of " +
                                std::to_string(world_size_));
    }
}

void SimCollective::barrier() {
    if (world_size_ == 1) {
        scheduler_->note_local_collective();
        return;
    }
    scheduler_->barrier(rank_, label_);
}

SharedJson SimCollective::broadcast(nlohmann::json value, int src) {
    // torch rejects a root outside the group before any communication, so this is an error on the calling
    // rank, not a hang.
    if (src < 0 || src >= world_size_) {
        throw std::invalid_argument("broadcast: src " + std::to_string(src) + " outside a world of " +
                                    std::to_string(world_size_));
    }
    if (world_size_ == 1) {
        scheduler_->note_local_collective();
        return share_json(std::move(value));
    }
    return scheduler_->broadcast(rank_, std::move(value), src, label_);
}

}  // namespace ckpt::sim
