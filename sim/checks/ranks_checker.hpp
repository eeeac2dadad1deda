// P6 and P7: a rank-zero failure ends every rank with the same error and only a dead rank hangs
// a job; after every collective each live rank holds the state the ledger says was decided
// there (restored and baselined at on_train_begin, then each decision), rank 0 included, so a
// world of one is judged too. When rank 0 died before recording a decision its survivors must
// at least agree with each other.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/core/checkpoint_evaluation_state.hpp"
#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RanksChecker {
  public:
    explicit RanksChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan&) noexcept;
    void on(const TrainBegan& e);
    void on(const BaselineEstablished& e);
    void on(const DecisionMade& e);
    void on(const RankStateShared& e);
    void on(const RanksEnded& e);
    void on(const IncarnationEnded&) { judge_undecided(); }
    void on(const auto&) noexcept {}

  private:
    // What the ledger says the ranks hold after collective `sequence`.
    struct Expectation {
        std::uint64_t sequence = 0;
        CheckpointEvaluationState state;
        bool settled = false;  // the restore waits for the baseline when the scenario has one
    };
    // A rank's report that arrived before the ledger's expectation for its collective.
    struct Report {
        int rank = 0;
        std::uint64_t sequence = 0;
        CheckpointEvaluationState state;
    };
    void expect(std::uint64_t sequence, const CheckpointEvaluationState& state, bool settled);
    void settle(const Expectation& expectation);
    void compare(const Report& report, const Expectation& expectation);
    void judge_undecided();

    const CheckerContext& context_;
    std::uint64_t rank_zero_sequence_ = 0;  // rank 0's next collective to report
    std::vector<Expectation>::iterator expectation_of(std::uint64_t sequence);
    std::vector<Expectation> expected_;  // ascending by sequence
    std::vector<Report> waiting_;
};

}  // namespace ckpt::sim
