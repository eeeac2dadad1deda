// P14: on_train_begin refuses exactly the training arguments the seed's rules refuse. The rules
// are restated here from the scenario's settings and the disk alone (never the callback's own
// test): save_strategy "best"; Transformers tracking another best than the callback's beside a
// save_total_limit; save_total_limit 1 beside any best tracking; and Transformers' appending
// refresh restoring several callbacks of one class; the same refresh meeting, on a resume, an
// early-stopping callback the checkpoint stores none of. A refusal must be due and name the first
// setting that makes it due; a due rule that on_train_begin lets through is a missed refusal.
// Refusals only happen at on_train_begin, so one due from the first incarnation on is judged
// there, and a later one is due because of what the resume read (the appended states).
#pragma once

#include <optional>
#include <string_view>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

// The first refusal rule the settings break, as the setting a refusal must name ("" when none).
// `several_of_one_class`: the stored stateful callbacks hold a list for some class;
// `checkpoint_lacks_a_class`: a resume configures a stateful callback class they do not store.
std::string_view due_refusal(const TrainerOptions& trainer, bool several_of_one_class,
                             bool checkpoint_lacks_a_class = false);

// The setting a refusal of the seed's form leads with ("... cannot run with save_total_limit=1 and
// metric_for_best_model ...", "... cannot resume with EarlyStoppingCallback callbacks ..."): the
// word after that phrase, up to '=' or a space. Nothing for a message of another form.
std::optional<std::string_view> leading_setting(std::string_view error);

class RefusalChecker {
  public:
    explicit RefusalChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const TrainingRefused& e);
    void on(const TrainBegan&);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
    std::string_view due_;  // the setting the running incarnation's start must refuse
};

}  // namespace ckpt::sim
