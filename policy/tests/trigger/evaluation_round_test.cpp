// The distributed evaluation round of policy/trigger/evaluation_round.hpp: on one rank over both
// file system backends, and as rank 0 and rank 1 of two (rank 1 replays rank 0's broadcasts).
#include "policy/trigger/evaluation_round.hpp"

#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/ports/rank_zero_outcome.hpp"
#include "policy/tests/support/file_system_backends.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"

namespace ckpt::testing {
namespace {

// Logs every moment of a round by name.
class RecordingRoundObserver final : public EvaluationRoundObserver {
  public:
    std::vector<std::string> events;

    void before_rank_zero_outcome(const char* operation) override {
        events.push_back(std::string("enter ") + operation);
    }
    void on_decision(const CheckpointEvaluationState&, const CheckpointEvaluationDecision& decision,
                     const CheckpointEvaluationState&) override {
        events.push_back(decision.should_save ? "decision save" : "decision no save");
    }
    void on_rank_state(const CheckpointEvaluationState& state) override {
        events.push_back("state " + std::to_string(state.evaluation_count));
    }
    void before_apply(TrainerControl& control) override {
        events.push_back(control.should_save ? "before apply, saving" : "before apply");
    }
    void on_stop_in_force() override { events.emplace_back("stop"); }
    void after_recorded(const CheckpointEvaluationDecision&) override { events.emplace_back("recorded"); }
    void after_persist(const CheckpointEvaluationState&) override { events.emplace_back("persisted"); }
};

// Rank 0 of two: keeps every outcome it broadcasts, for a ScriptedRankOneCollective to replay.
class RankZeroOfTwoCollective final : public Collective {
  public:
    std::deque<nlohmann::json> sent;

    int rank() const override { return 0; }
    int world_size() const override { return 2; }
    void barrier() override {}
    SharedJson broadcast(nlohmann::json value, int /*src*/) override {
        sent.push_back(value);
        return share_json(std::move(value));
    }
};

// A save event at `step` reaching the round, as on_step_end leaves the control.
TrainerControl save_event() {
    TrainerControl control;
    control.should_save = true;
    control.should_evaluate = true;
    return control;
}

template <typename Backend>
using EvaluationRound = TriggerCallbackTest<Backend>;
TYPED_TEST_SUITE(EvaluationRound, Backends, BackendNames);

TYPED_TEST(EvaluationRound, AnImprovedScoreKeepsTheSaveAndPersistsNothing) {
    auto callback = this->make();
    RecordingRoundObserver observer;
    auto control = save_event();
    const auto decision =
        run_checkpoint_evaluation_round(this->collective_, callback, control, 0.5, 10, observer);
    EXPECT_TRUE(decision.should_save);
    EXPECT_TRUE(control.should_save);
    EXPECT_EQ(callback.pending_checkpoint_save_step(), 10);
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
    EXPECT_THAT(observer.events, ElementsAre("enter decision", "decision save", "state 1",
                                             "before apply, saving", "recorded"));
}

// The shared outcome names the operation once: "checkpoint evaluation decision failed", not
// "checkpoint evaluation checkpoint evaluation decision failed".
TYPED_TEST(EvaluationRound, ARankZeroFailureNamesTheOperationOnce) {
    auto callback = this->make();
    RecordingRoundObserver observer;
    auto control = save_event();
    try {
        run_checkpoint_evaluation_round(this->collective_, callback, control, std::nan(""), 10, observer);
        FAIL() << "a NaN score must fail the round";
    } catch (const RankZeroFailure& failure) {
        EXPECT_THAT(failure.what(),
                    ::testing::StartsWith("checkpoint evaluation decision failed on global rank "
                                          "zero (ValueError): checkpoint evaluation score must be "
                                          "finite"));
    }
}

TYPED_TEST(EvaluationRound, ALowerScoreVetoesTheSaveAndIsPersistedAtOnce) {
    auto config = this->config();
    config.policy.patience = 1;
    auto callback = this->make(config);
    callback.policy().observe(0.9, 10);
    RecordingRoundObserver observer;
    auto control = save_event();
    const auto decision =
        run_checkpoint_evaluation_round(this->collective_, callback, control, 0.1, 20, observer);
    EXPECT_FALSE(decision.should_save);
    EXPECT_FALSE(control.should_save);
    EXPECT_TRUE(control.should_training_stop);
    EXPECT_EQ(this->read_json(this->sidecar_path())["checkpoint_eval_state"], callback.policy().state_dict());
    EXPECT_THAT(observer.events,
                ElementsAre("enter decision", "decision no save", "state 2", "before apply, saving", "stop",
                            "recorded", "enter persist", "persisted"));
}

TEST(EvaluationRoundOfTwoRanks, RankOneAdoptsRankZerosDecisionAndStateAndTouchesNoFile) {
    InMemoryFileSystem disk;
    make_dirs(disk, "/out");
    TriggerCallbackConfig config;
    config.output_dir = "/out";
    config.policy.patience = 1;

    RankZeroOfTwoCollective rank_zero_collective;
    TriggerCallback rank_zero(config, disk, rank_zero_collective);
    ForbiddenFileSystem no_disk;
    ScriptedRankOneCollective rank_one_collective;
    TriggerCallback rank_one(config, no_disk, rank_one_collective);

    RecordingRoundObserver zero_events;
    RecordingRoundObserver one_events;
    for (const auto& [score, step] : {std::pair{0.9, std::int64_t{10}}, std::pair{0.1, std::int64_t{20}}}) {
        auto zero_control = save_event();
        run_checkpoint_evaluation_round(rank_zero_collective, rank_zero, zero_control, score, step,
                                        zero_events);
        rank_one_collective.rank_zero_outcomes = std::move(rank_zero_collective.sent);
        rank_zero_collective.sent.clear();
        auto one_control = save_event();
        // Rank 1's own score is ignored: only rank 0 decides.
        run_checkpoint_evaluation_round(rank_one_collective, rank_one, one_control, -1.0, step, one_events);
        EXPECT_EQ(one_control.should_save, zero_control.should_save);
        EXPECT_EQ(one_control.should_training_stop, zero_control.should_training_stop);
        EXPECT_EQ(rank_one.policy().state_dict(), rank_zero.policy().state_dict());
    }
    EXPECT_THAT(one_events.events,
                ElementsAre("enter decision", "state 1", "before apply, saving", "recorded", "enter decision",
                            "state 2", "before apply, saving", "stop", "recorded", "enter persist"));
    EXPECT_TRUE(rank_one_collective.rank_zero_outcomes.empty());
}

}  // namespace
}  // namespace ckpt::testing
