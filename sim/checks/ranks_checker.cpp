// P6 over the ranks' outcomes and P7 over the states the ranks report after each collective.
// Keeps one entry per collective of the running incarnation.
#include "sim/checks/ranks_checker.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {

void RanksChecker::on(const RankStateShared& e) {
    const auto found = std::find_if(agreement_.begin(), agreement_.end(),
                                    [&](const auto& entry) { return entry.first == e.sequence; });
    if (found == agreement_.end()) {
        agreement_.emplace_back(e.sequence, e.state);
        return;
    }
    if (found->second != e.state) {
        context_.violate(Property::P7, "after collective #" + std::to_string(e.sequence) + " rank " +
                                           std::to_string(e.rank) + " holds " + describe(e.state) +
                                           " but another rank holds " + describe(found->second));
    }
}

void RanksChecker::on(const RanksEnded& e) {
    const auto& result = e.result;
    if (result.hung() && e.dead_ranks == 0) {
        context_.violate(Property::P6, "ranks hang with no dead rank: " + result.hang);
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
