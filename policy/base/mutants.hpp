// The mutation catalogue and its switch: planted bugs the property suite must catch. The switch
// is thread-local and settable only through MutantScope, so parallel explorers never see each
// other's mutant and production code, with no scope alive, pays one predictable branch per check.
// Depends on nothing; checked throughout policy/, armed only by sim/explore and tests.
#pragma once

// The mutation catalogue: planted bugs behind a thread-local switch that only MutantScope sets.
// catalogue() lists the mutants the simulator must kill; pending() those planted before their
// killing check is wired, which the kill table and the corpus do not expect yet. Depends on
// nothing.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ckpt::mutants {

// The mutation catalogue: realistic bugs planted in the real code, each behind a run-time
// switch, so the property suite can prove it would notice them. The switch is thread-local
// (parallel explorers test different mutants) and only MutantScope can set it, so no library
// user turns one on by accident. With no scope alive every check is one predictable branch.
enum class Mutant : std::uint8_t {
    none = 0,
    stale_callback_state,
    same_class_overwrite,
    duplicate_list_grows,
    sidecar_without_temp_rename,
    sidecar_without_fsync,
    sidecar_without_dir_fsync,
    sidecar_without_commit_check,
    sidecar_rollback,
    rank0_raise_before_broadcast,
    link_before_barrier,
    link_at_evaluation,
    stop_not_restored,
    no_epoch_end_veto,
    pending_save_persisted,
    tie_replaces_best,
    warmup_consumes_patience,
    resume_trusts_incomplete,
    commit_check_is_dir_only,
    double_count_replayed_step,
    gate_steps_ignored,
    prune_all_older,
    link_after_sidecar,
    restored_state_not_shared,
    early_stopping_counter_not_saved,
    baseline_overwrites_restore,
    tie_policy_as_reset,
    warmup_boundary_off_by_one,
    stop_flag_not_persisted,
    callback_state_left_to_trainer,
    link_before_checkpoint_fsync,
    recovery_link_before_fsync,
    changed_args_silently_restored,
    appended_duplicates_restored,
    resume_ignores_weights,
    trainer_best_cleanup_accepted,
    save_strategy_best_accepted,
    lower_score_not_persisted,
    streak_persist_skipped,
    stop_not_persisted,
    tie_stop_not_persisted,
    persist_reported_not_done,
    streak_reset_at_epoch_end,
    restored_streak_dropped,
    prior_streak_short_by_one,
    over_refusal_on_epoch_resume,
    refusal_rule_ignores_refresh,
    refusal_only_on_resume,
    dead_link_test_is_dir_only,
    last_rank_skips_commit_barrier,
    seed_sidecar_ignored,
    trainer_evaluation_taken_for_save,
    trainer_best_not_adopted,
    complete_checkpoint_needs_optimizer,
    stale_trainer_best_accepted,
    shard_index_trusted,
    stop_epoch_end_taken_for_replay,
    completeness_read_capped,
    shard_index_unread,
    added_callback_resume_accepted,
    refusal_misnames_setting,
    bin_weights_trusted,
    abandoned_sidecar_kept,
    python_constants_refused,
};

struct MutantInfo {
    Mutant mutant;
    std::string_view name;
    std::string_view breaks;  // one line: what the bug breaks
};

std::span<const MutantInfo> catalogue();
// Planted, armed only by MutantScope like the others, but no simulator check kills them yet.
std::span<const MutantInfo> pending();
// Both look in catalogue() and pending().
std::optional<Mutant> find(std::string_view name);
std::string_view name_of(Mutant mutant);

namespace detail {
inline thread_local Mutant active = Mutant::none;
}  // namespace detail

inline bool is_active(Mutant mutant) noexcept {
    return detail::active == mutant;
}
inline Mutant active() noexcept {
    return detail::active;
}

// Arms one mutant on this thread for the scope's lifetime. Meant for the mutation runner and
// tests only; the verbose name is the guard against accidental use.
class MutantScope {
  public:
    explicit MutantScope(Mutant mutant) noexcept : previous_(detail::active) { detail::active = mutant; }
    ~MutantScope() { detail::active = previous_; }
    MutantScope(const MutantScope&) = delete;
    MutantScope& operator=(const MutantScope&) = delete;

  private:
    Mutant previous_;
};

// Not a mutant: the seam of the test that deletes every observer call from the port (the
// evaluation round's hooks), to show that every property still judges without them. Thread-local
// and scoped like the mutant switch, and off unless a test sets it.
namespace detail {
inline thread_local bool observer_calls_deleted = false;
}  // namespace detail

inline bool observer_calls_deleted() noexcept {
    return detail::observer_calls_deleted;
}

class ObserverCallsDeletedScope {
  public:
    ObserverCallsDeletedScope() noexcept : previous_(detail::observer_calls_deleted) {
        detail::observer_calls_deleted = true;
    }
    ~ObserverCallsDeletedScope() { detail::observer_calls_deleted = previous_; }
    ObserverCallsDeletedScope(const ObserverCallsDeletedScope&) = delete;
    ObserverCallsDeletedScope& operator=(const ObserverCallsDeletedScope&) = delete;

  private:
    bool previous_;
};

}  // namespace ckpt::mutants
