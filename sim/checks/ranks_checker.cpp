// P6 over the ranks' outcomes and P7 over the states the ranks report after each collective,
// judged against the ledger. Rank 0 reports its restore (TrainBegan) and each decision
// (DecisionMade) before its own state report of the same collective, but another rank may leave
// the collective first: such a report waits until the ledger's expectation is known.
#include "sim/checks/ranks_checker.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "sim/checks/disk_truth.hpp"
#include "sim/checks/lineage.hpp"

namespace ckpt::sim {

void RanksChecker::on(const IncarnationBegan&) noexcept {
    rank_zero_sequence_ = 0;
    expected_.clear();
    waiting_.clear();
}

// What the ledger says rank 0 must restore when it knows the checkpoint read, else the decision
// the ledger identified the restore as (P2 judges whether it was the right one).
void RanksChecker::on(const TrainBegan&) {
    const auto& ledger = context_.ledger;
    const auto& restored =
        ledger.expected_node ? ledger.expected_state : node_state(ledger, ledger.current_node);
    expect(rank_zero_sequence_, restored, !context_.scenario.score.external_baseline);
}

// The seed's baseline rule, restated: a state without a best takes the baseline as an external
// best at step 0 with a fresh streak and no stop; a state with a best keeps it.
void RanksChecker::on(const BaselineEstablished& e) {
    const auto found = expectation_of(rank_zero_sequence_);
    if (found == expected_.end()) {
        return;
    }
    auto& state = found->state;
    if (!state.best_score) {
        state.best_score = e.score;
        state.best_step = 0;
        state.lower_score_streak = 0;
        state.stop_requested = false;
        state.best_is_external = true;
    }
    found->settled = true;
    settle(*found);
}

void RanksChecker::on(const DecisionMade&) {
    const auto& evaluations = context_.ledger.evaluations;
    if (!evaluations.empty()) {
        expect(rank_zero_sequence_, evaluations.back().after, true);
    }
}

// The first expectation of `sequence`. Expectations are pushed at rank 0's next sequence, which
// only grows within an incarnation, so the list is sorted: a search, not a scan of the run.
std::vector<RanksChecker::Expectation>::iterator RanksChecker::expectation_of(std::uint64_t sequence) {
    const auto found =
        std::lower_bound(expected_.begin(), expected_.end(), sequence,
                         [](const Expectation& x, std::uint64_t wanted) { return x.sequence < wanted; });
    return found != expected_.end() && found->sequence == sequence ? found : expected_.end();
}

void RanksChecker::expect(std::uint64_t sequence, const CheckpointEvaluationState& state, bool settled) {
    expected_.push_back({sequence, state, settled});
    if (settled) {
        settle(expected_.back());
    }
}

// Judges the reports that were waiting for this expectation.
void RanksChecker::settle(const Expectation& expectation) {
    for (const auto& report : waiting_) {
        if (report.sequence == expectation.sequence) {
            compare(report, expectation);
        }
    }
    std::erase_if(waiting_, [&](const Report& r) { return r.sequence == expectation.sequence; });
}

void RanksChecker::on(const RankStateShared& e) {
    if (e.rank == 0) {
        rank_zero_sequence_ = e.sequence + 1;
    }
    const auto found = expectation_of(e.sequence);
    const Report report{e.rank, e.sequence, e.state};
    if (found != expected_.end() && found->settled) {
        compare(report, *found);
    } else {
        waiting_.push_back(report);
    }
}

void RanksChecker::compare(const Report& report, const Expectation& expectation) {
    if (report.state != expectation.state) {
        context_.violate(Property::P7, "after collective #" + std::to_string(report.sequence) + " rank " +
                                           std::to_string(report.rank) + " holds " + describe(report.state) +
                                           " but the ledger's state there is " + describe(expectation.state));
    }
}

// Rank 0 died before it recorded the decision these reports carry: nothing in the ledger says
// what it was, but every rank that received it must hold the same.
void RanksChecker::judge_undecided() {
    for (std::size_t i = 0; i < waiting_.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (waiting_[j].sequence == waiting_[i].sequence && waiting_[j].state != waiting_[i].state) {
                context_.violate(Property::P7, "after collective #" + std::to_string(waiting_[i].sequence) +
                                                   ", which rank 0 never recorded, rank " +
                                                   std::to_string(waiting_[i].rank) + " holds " +
                                                   describe(waiting_[i].state) + " but rank " +
                                                   std::to_string(waiting_[j].rank) + " holds " +
                                                   describe(waiting_[j].state));
                break;
            }
        }
    }
    waiting_.clear();
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
