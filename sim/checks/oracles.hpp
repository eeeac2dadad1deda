// The checkers, one per concern, fed every event in one fixed order: stop (P3), durability
// (P2, P9), commit (P5), link (P1, P4), retention (P1), retained best (P1 on the disk), the
// trainer's best (P1), ranks (P6), callbacks (P10), rules (P11, P12, P7), liveness (P12),
// schedule (P13), refusal (P14). That order keeps the violations of one event in the order
// DESIGN.md's checks list them. Checkers read the ledger; the LedgerWriter, delivered the event
// first, writes it.
#pragma once

#include <vector>

#include "sim/checks/callbacks_checker.hpp"
#include "sim/checks/checker_context.hpp"
#include "sim/checks/commit_checker.hpp"
#include "sim/checks/durability_checker.hpp"
#include "sim/checks/link_checker.hpp"
#include "sim/checks/liveness_checker.hpp"
#include "sim/checks/ranks_checker.hpp"
#include "sim/checks/refusal_checker.hpp"
#include "sim/checks/retained_best_checker.hpp"
#include "sim/checks/retention_checker.hpp"
#include "sim/checks/rules_checker.hpp"
#include "sim/checks/schedule_checker.hpp"
#include "sim/checks/stop_checker.hpp"
#include "sim/checks/trainer_best_checker.hpp"

namespace ckpt::sim {

class Oracles {
  public:
    Oracles(const Scenario& scenario, const SimFileSystem& fs, const Ledger& ledger, const SaveWindow& window)
        : context_{scenario, fs, ledger, window, violations_},
          stop_(context_),
          durability_(context_),
          commit_(context_),
          link_(context_),
          retention_(context_),
          retained_best_(context_),
          trainer_best_(context_),
          ranks_(context_),
          callbacks_(context_),
          rules_(context_),
          liveness_(context_),
          schedule_(context_),
          refusal_(context_) {}
    Oracles(const Oracles&) = delete;
    Oracles& operator=(const Oracles&) = delete;

    // Inline into the simulation's one dispatch per event: the checkers' own work is out of
    // line (a profile finds it under the *Checker classes), their common cases are not.
    template <typename E>
    void on(const E& e) {
        stop_.on(e);
        durability_.on(e);
        commit_.on(e);
        link_.on(e);
        retention_.on(e);
        retained_best_.on(e);
        trainer_best_.on(e);
        ranks_.on(e);
        callbacks_.on(e);
        rules_.on(e);
        liveness_.on(e);
        schedule_.on(e);
        refusal_.on(e);
    }

    ViolationLog& violations() noexcept { return violations_; }
    const LinkChecker& link() const noexcept { return link_; }

  private:
    ViolationLog violations_;
    CheckerContext context_;
    StopChecker stop_;
    DurabilityChecker durability_;
    CommitChecker commit_;
    LinkChecker link_;
    RetentionChecker retention_;
    RetainedBestChecker retained_best_;
    TrainerBestChecker trainer_best_;
    RanksChecker ranks_;
    CallbacksChecker callbacks_;
    RulesChecker rules_;
    LivenessChecker liveness_;
    ScheduleChecker schedule_;
    RefusalChecker refusal_;
};

}  // namespace ckpt::sim
