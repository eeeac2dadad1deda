// P6 over the ranks' outcomes as the scheduler reports them.
#include "sim/checks/ranks_checker.hpp"

#include <optional>
#include <string>

namespace ckpt::sim {

void RanksChecker::on(const RanksEnded& e) {
    const auto& result = e.result;
    // A death excuses a hang only when the hung collective waits on the dead rank: a rank that
    // finished or failed while the others wait is the bug P6 is about, whoever else died.
    if (result.hung() && !result.hang_awaits_dead_rank) {
        context_.violate(Property::P6, std::string(e.dead_ranks == 0 ? "ranks hang with no dead rank: "
                                                                     : "ranks hang on no dead rank: ") +
                                           result.hang);
        return;
    }
    std::optional<std::string> first_error;
    bool someone_finished = false;
    for (std::size_t rank = 0; rank < result.ranks.size(); ++rank) {
        const auto& outcome = result.ranks[rank];
        if (outcome.kind == RankOutcome::Kind::finished) {
            someone_finished = true;
        }
        if (outcome.kind != RankOutcome::Kind::failed) {
            continue;
        }
        if (!first_error) {
            first_error = outcome.message;
        } else if (*first_error != outcome.message) {
            context_.violate(Property::P6, "ranks failed with different errors: '" + *first_error +
                                               "' and rank " + std::to_string(rank) + ": '" +
                                               outcome.message + "'");
            return;
        }
    }
    if (first_error && someone_finished) {
        context_.violate(Property::P6, "some ranks finished while others failed with: " + *first_error);
    }
}

}  // namespace ckpt::sim
