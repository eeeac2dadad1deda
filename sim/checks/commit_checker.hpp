// P5: a resume starts from a complete checkpoint (under the fixed rule, the newest one whose
// weights load: never an older one, nor from scratch, while it exists), and a restored best_step
// names a complete checkpoint written for that score, which final_checkpoint names after
// on_train_begin (P4).
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class CommitChecker {
  public:
    explicit CommitChecker(const CheckerContext& context) : context_(context) {}

    void on(const ResumeSourceChosen& e);
    void on(const FixedResumeRuleReturned& e);
    void on(const TrainBegan&);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
