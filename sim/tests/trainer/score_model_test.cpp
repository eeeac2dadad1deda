// The score model's memory follows the steps a run reaches, never max_steps (issue 14), and its
// lazily kept walk and counted schedule give the scores a full listing would: any query order
// gives the same score, and a scripted score belongs to the n-th step of the schedule as the
// test lists it itself.
#include "sim/trainer/score_model.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace ckpt::sim {
namespace {

Scenario walk_scenario(std::int64_t max_steps) {
    Scenario s;
    s.seed = 7;
    s.trainer.max_steps = max_steps;
    s.score.kind = ScoreKind::random_walk;
    return s;
}

TEST(ScoreModel, KeepsNothingSizedByMaxSteps) {
    const ScoreModel small(walk_scenario(2'000));
    const ScoreModel huge(walk_scenario(kMaxScenarioSteps));
    EXPECT_EQ(huge.kept_walk_values(), 0U);
    for (std::int64_t step = 10; step <= 2'000; step += 10) {
        EXPECT_EQ(small.score(step, 0), huge.score(step, 0)) << step;
    }
    // Marks up to the furthest step asked, one per stride, whatever max_steps is.
    EXPECT_LE(huge.kept_walk_values(), 2'000 / ScoreModel::kWalkStride + 1);
}

TEST(ScoreModel, AnyQueryOrderGivesTheSameWalk) {
    const ScoreModel ascending(walk_scenario(20'000));
    std::vector<double> expected;
    for (std::int64_t step = 0; step <= 20'000; ++step) {
        expected.push_back(ascending.score(step, 0));
    }
    const ScoreModel scrambled(walk_scenario(20'000));
    std::uint64_t state = 12345;
    for (int i = 0; i < 5'000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto step = static_cast<std::int64_t>((state >> 33) % 20'001);
        ASSERT_EQ(scrambled.score(step, 0), expected[static_cast<std::size_t>(step)]) << step;
    }
    EXPECT_EQ(scrambled.score(50'000, 0), expected.back());  // past max_steps: the last value
}

TEST(ScoreModel, ScriptFollowsTheListedSchedule) {
    for (const std::int64_t regular : {0, 7, 10, 15}) {
        Scenario s;
        s.trainer.max_steps = 333;
        s.trainer.save_steps = 25;
        s.callbacks.gate_steps = {3, 50, 51, 51, 400};
        if (regular > 0) {
            s.callbacks.regular_steps = regular;
        }
        s.score.kind = ScoreKind::scripted;
        for (int i = 0; i < 97; ++i) {
            s.score.script.push_back(i);
        }
        // The schedule listed in full: gate steps, the save grid, the regular grid, max_steps.
        std::vector<std::int64_t> listed(s.callbacks.gate_steps.begin(), s.callbacks.gate_steps.end());
        for (std::int64_t step = 25; step <= 333; step += 25) {
            listed.push_back(step);
        }
        for (std::int64_t step = regular; regular > 0 && step <= 333; step += regular) {
            listed.push_back(step);
        }
        listed.push_back(333);
        std::sort(listed.begin(), listed.end());
        listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
        const ScoreModel model(s);
        for (std::int64_t step = 1; step <= 333; ++step) {
            const auto position = std::lower_bound(listed.begin(), listed.end(), step) - listed.begin();
            EXPECT_EQ(model.score(step, 0), static_cast<double>(position % 97)) << regular << " " << step;
        }
    }
}

}  // namespace
}  // namespace ckpt::sim
