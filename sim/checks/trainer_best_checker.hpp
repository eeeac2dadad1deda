// P1, Transformers' own best: every trainer_state.json written carries the best_metric,
// best_global_step and best_model_checkpoint that Transformers' tracking gives, restated here
// from the evaluated scores (MetricsEvaluated), the scenario's metric_for_best_model and
// greater_is_better, the visible disk and, on resume, the resumed trainer_state.json itself.
// The policy's best plays no part: the two may disagree, and the trainer's is what rotates.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/checks/checker_context.hpp"
#include "sim/checks/first_reports.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class TrainerBestChecker {
  public:
    explicit TrainerBestChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const MetricsEvaluated& e) noexcept;
    void on(const TrainerStateWritten& e);
    void on(const auto&) noexcept {}

  private:
    struct Best {
        std::optional<double> metric;
        std::optional<std::int64_t> global_step;
        std::optional<std::string> model_checkpoint;
    };
    // The three best members of a trainer_state.json, when it is a JSON object.
    using BestFields = std::optional<std::map<std::string, nlohmann::json, std::less<>>>;
    // A write this checker judged: a resume that finds exactly these bytes reads them again.
    struct JudgedWrite {
        FileBytes bytes;  // the write's runs, shared
        BestFields fields;
    };
    void remember(std::int64_t step, const FileBytes& bytes, const BestFields& fields);
    void compare(std::int64_t step, const char* field, const nlohmann::json& written,
                 const nlohmann::json& expected) const;

    const CheckerContext& context_;
    Best best_;
    // Each write is reported more than once: the checkpoint and its writer's rank.
    std::optional<std::pair<std::int64_t, int>> checked_write_;
    FirstReports evaluations_;  // every rank reports each evaluation; the first report counts
    // By step, the last judged write of each checkpoint the ledger still holds (the others can
    // never be resumed from: LedgerWriter retires them), pruned when the ledger retires one.
    std::map<std::int64_t, JudgedWrite> judged_;
    std::uint64_t retirements_seen_ = 0;
};

}  // namespace ckpt::sim
