// Marks the rare paths (rare_path.hpp) one scenario reached, from what the run did: the events the
// simulator owns (scores fed, flags handed back, faults executed) and the ledger's own decisions,
// never the policy's reports, so a switch that is on but whose moment never came counts nothing.
// Inline and allocation-free: every decision and crash point of rank 0 passes here.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "policy/core/tie_policy.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/events/event.hpp"
#include "sim/world/rare_path.hpp"

namespace ckpt::sim {

class RarePathTracker {
  public:
    RarePathTracker(std::array<std::uint64_t, kRarePathCount>& reached, const Scenario& scenario,
                    const Ledger& ledger)
        : reached_(reached), scenario_(scenario), ledger_(ledger) {}

    void on(const IncarnationBegan& e) noexcept {
        if (e.resume_step && sidecar_lower_step_ && *e.resume_step < *sidecar_lower_step_) {
            mark(RarePath::sidecar_lower_then_older_resume);
        }
        // The first resume from a checkpoint resumes one written under the original
        // configuration, so the edit is a real change there; it counts once training goes on.
        changed_resume_ = e.resume_step && scenario_.callbacks.resume_change.any();
        last_scored_step_.reset();
        since_stop_decision_.reset();
        since_stop_persisted_.reset();
    }
    // on_train_begin returned: the resume was not refused.
    void on(const TrainBegan& e) noexcept {
        if (e.resumed && ledger_.expected_state.stop_requested) {
            mark(RarePath::durable_stop_restored);
        }
        if (changed_resume_) {
            mark(RarePath::config_changed_on_resume);
        }
        if (e.resumed && ledger_.restored_from_seed_sidecar) {
            mark(RarePath::seed_sidecar_adopted);
        }
        if (e.resumed && keyed_and_positional_restored()) {
            mark(RarePath::keyed_beside_positional_resumed);
        }
    }
    // The ledger writer has just decided this evaluation (its prior is the ledger's, too).
    void on(const EvaluationScored& e) noexcept {
        if (!ledger_.last_decision) {
            return;
        }
        const auto& decision = *ledger_.last_decision;
        const auto& prior = decision.prior;
        const auto start = scenario_.callbacks.policy.patience_start_step;
        // The boundary tests the warm-up only when the score does not improve.
        if (start > 0 && e.step == start && !decision.should_save) {
            mark(RarePath::warmup_boundary_evaluation);
        }
        if (prior.best_score && e.score == *prior.best_score && prior.lower_score_streak > 0) {
            mark(tie_path(scenario_.callbacks.policy.tie_policy));
        }
        if (last_scored_step_ == e.step) {
            mark(RarePath::same_step_evaluated_twice);
        }
        last_scored_step_ = e.step;
        lower_step_ =
            !decision.should_save && !decision.should_stop && prior.best_score && e.score < *prior.best_score
                ? std::optional<std::int64_t>(e.step)
                : std::nullopt;
        stop_in_flight_ = decision.should_stop;
        if (decision.should_stop) {
            since_stop_decision_ = 0;
        }
    }
    // Rank 0's on_evaluate returned: what the round persisted is on the disk.
    void on(const EvaluationReturned& e) noexcept {
        if (e.rank != 0) {
            return;
        }
        if (stop_in_flight_) {
            since_stop_persisted_ = 0;
        }
        if (lower_step_) {
            sidecar_lower_step_ = lower_step_;
        }
        lower_step_.reset();
        stop_in_flight_ = false;
    }
    void on(const Committed& e) noexcept {
        if (sidecar_lower_step_ && e.step >= *sidecar_lower_step_) {
            sidecar_lower_step_.reset();  // a checkpoint newer than the lower score exists
        }
    }
    void on(const CrashPointPassed& e) noexcept {
        if (e.rank == 0) {
            count_pass(since_stop_decision_);
            count_pass(since_stop_persisted_);
        }
    }
    void on(const CrashInjected& e) noexcept {
        if (e.scope == CrashScope::job) {
            // The crash point it fires at has just passed: one passage is "right after".
            mark_if_recent(since_stop_decision_, RarePath::crash_after_stop_decision);
            mark_if_recent(since_stop_persisted_, RarePath::crash_after_stop_persisted);
        }
    }
    // Two paths apart: blocked in a collective it never left, or released by it with the payload in
    // hand and killed before it returned (a mid-broadcast death is also in a collective).
    void on(const RankDeathInjected& e) noexcept {
        if (e.in_collective && !e.mid_broadcast) {
            mark(RarePath::rank_killed_in_collective);
        }
        if (e.mid_broadcast) {
            mark(RarePath::rank_killed_mid_broadcast);
        }
    }
    void on(const EarlyStoppingRequested& e) noexcept {
        if (e.rank == 0) {
            mark(RarePath::early_stopping_acted);
        }
    }
    void on(const auto&) noexcept {}

  private:
    // The resumed configuration restores early-stopping callbacks both with and without a key.
    bool keyed_and_positional_restored() const noexcept {
        const auto& callbacks = scenario_.callbacks;
        if (!scenario_.trainer.restore_callback_states_from_checkpoint ||
            !callbacks.early_stopping_mixed_keys) {
            return false;
        }
        const auto configured = configured_callbacks(callbacks, true);
        const auto keyed = std::count_if(configured.early_stopping.begin(), configured.early_stopping.end(),
                                         [&](int id) { return early_stopping_keyed(callbacks, id); });
        return keyed > 0 && keyed < static_cast<std::ptrdiff_t>(configured.early_stopping.size());
    }
    static RarePath tie_path(TiePolicy policy) noexcept {
        switch (policy) {
            case TiePolicy::reset:
                return RarePath::tie_with_streak_reset;
            case TiePolicy::ignore:
                return RarePath::tie_with_streak_ignore;
            case TiePolicy::stop:
                return RarePath::tie_with_streak_stop;
            case TiePolicy::count:
                break;
        }
        return RarePath::tie_with_streak_count;
    }
    static void count_pass(std::optional<std::uint32_t>& since) noexcept {
        if (since) {
            *since += 1;
        }
    }
    void mark_if_recent(const std::optional<std::uint32_t>& since, RarePath path) noexcept {
        if (since && *since <= 1) {
            mark(path);
        }
    }
    void mark(RarePath path) noexcept { reached_[static_cast<std::size_t>(path)] = 1; }

    std::array<std::uint64_t, kRarePathCount>& reached_;
    const Scenario& scenario_;
    const Ledger& ledger_;
    bool changed_resume_ = false;
    bool stop_in_flight_ = false;
    std::optional<std::int64_t> last_scored_step_;
    std::optional<std::int64_t> lower_step_;          // the last decision, when a sidecar-only lower score
    std::optional<std::int64_t> sidecar_lower_step_;  // that score, once it reached the sidecar
    std::optional<std::uint32_t> since_stop_decision_;
    std::optional<std::uint32_t> since_stop_persisted_;
};

}  // namespace ckpt::sim
