// TrainerState.log_history: Trainer.log appends one entry per training log (logging_steps) and
// per evaluation, on every process, and save_to_json writes the whole list into every
// trainer_state.json; load_from_json brings back a checkpoint's list on resume. The entries' text
// is kept in one buffer that only grows, shared by every save's file (FileBytes), so a save costs
// its new entries and not the run's whole history again. Depends on sim/base and the port's
// FileBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policy/ports/file_bytes.hpp"

namespace ckpt::sim::transformers {

class LogHistory {
  public:
    // One logged number ("loss", "eval_loss", ...). Names are plain ASCII, as Transformers' are.
    struct Metric {
        std::string_view name;
        double value = 0.0;
    };

    // Trainer.log: the logs, with TrainerState's epoch and global_step added as "epoch" and
    // "step". Written straight into the buffer (an entry is logged at every logging step).
    void append(std::initializer_list<Metric> logs, double epoch, std::int64_t step);
    // TrainerState.load_from_json: the list a checkpoint's trainer_state.json holds, in place of
    // this one. A value that is not a list (only damage that still parses makes one) restores
    // an empty list; Transformers would fail at its next log instead, which is not modelled.
    void restore(const nlohmann::json& entries);
    // The same, from the entries' text as this class lays them out (load_trainer_state kept it).
    void restore_text(std::string_view entries);

    // trainer_state_text of `state` with this list as its "log_history", byte for byte, as runs:
    // the text before the list's entries, the entries (this buffer, shared), the text after.
    // `state` is a JSON object without "log_history".
    FileBytes document(nlohmann::json& state) const;

  private:
    // An entry already laid out at the top level (indent 2), moved to its place in the list.
    void append_dumped(std::string_view dumped);

    // The entries as save_to_json lays them out inside the list, separated by ",\n". Replaced,
    // never rewritten, on restore: earlier saves' files keep reading the old buffer.
    std::shared_ptr<std::string> text_ = std::make_shared<std::string>();
};

}  // namespace ckpt::sim::transformers
