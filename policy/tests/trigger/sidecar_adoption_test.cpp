// The adoption rules of policy/trigger/sidecar_adoption.hpp on both FileSystem backends, each
// rejection in its order, and the two mutants that weaken them.
#include "policy/trigger/sidecar_adoption.hpp"

#include <gtest/gtest.h>

#include "policy/base/mutants.hpp"
#include "policy/tests/support/file_system_backends.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"

namespace ckpt::testing {
namespace {

// A sidecar state with `evaluations` evaluations whose best is `score` at step 10.
CheckpointEvaluationState best_at_ten(double score, std::int64_t evaluations) {
    CheckpointEvaluationState state;
    state.best_score = score;
    state.best_step = 10;
    state.evaluation_count = evaluations;
    return state;
}

template <typename Backend>
class SidecarAdoptionTest : public TriggerCallbackTest<Backend> {
  protected:
    SidecarAdoption judge(const CheckpointEvaluationState& sidecar, std::int64_t restored) {
        return judge_sidecar_adoption(this->fs(), this->root(), sidecar, restored);
    }
    // checkpoint-10 complete, its callback state recording best 0.5 at step 10.
    void write_committed_best() {
        write_checkpoint(this->fs(), this->root(), 10, this->callback_state_after({0.5}));
    }
};

TYPED_TEST_SUITE(SidecarAdoptionTest, Backends, BackendNames);

TYPED_TEST(SidecarAdoptionTest, ASidecarWithNoMoreEvaluationsIsNotNewer) {
    this->write_committed_best();
    EXPECT_EQ(this->judge(best_at_ten(0.5, 3), 3), SidecarAdoption::not_newer);
    EXPECT_EQ(this->judge(best_at_ten(0.5, 2), 3), SidecarAdoption::not_newer);
}

TYPED_TEST(SidecarAdoptionTest, ANewerSidecarNeedsItsBestCommitted) {
    EXPECT_EQ(this->judge(best_at_ten(0.5, 2), 1), SidecarAdoption::uncommitted_best);
    make_dirs(this->fs(), this->at("checkpoint-10"));
    EXPECT_EQ(this->judge(best_at_ten(0.5, 2), 1), SidecarAdoption::uncommitted_best);
    this->write_committed_best();
    EXPECT_EQ(this->judge(best_at_ten(0.5, 2), 1), SidecarAdoption::adopted);
    EXPECT_EQ(this->judge(best_at_ten(0.75, 2), 1), SidecarAdoption::best_mismatch);
}

TYPED_TEST(SidecarAdoptionTest, AnExternalBestHasNoCheckpointToCheck) {
    auto sidecar = best_at_ten(0.5, 2);
    sidecar.best_step = 0;
    sidecar.best_is_external = true;
    EXPECT_EQ(this->judge(sidecar, 1), SidecarAdoption::adopted);
}

TYPED_TEST(SidecarAdoptionTest, TheMutantsSkipTheirRule) {
    this->write_committed_best();
    {
        const mutants::MutantScope scope(mutants::Mutant::sidecar_rollback);
        EXPECT_EQ(this->judge(best_at_ten(0.5, 1), 3), SidecarAdoption::adopted);
    }
    const mutants::MutantScope scope(mutants::Mutant::sidecar_without_commit_check);
    EXPECT_EQ(this->judge(best_at_ten(0.75, 2), 1), SidecarAdoption::adopted);
}

}  // namespace
}  // namespace ckpt::testing
