// What `explore` prints: the human summary, the JSON summary and coverage. Output depends only
// on the summary, so it is the same for any number of jobs. Depends on sim/explore.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/explore/explorer.hpp"

namespace ckpt::cli {

void print_explore_summary(std::ostream& out, const sim::ExploreSummary& summary,
                           const std::vector<std::string>& replays);
// Everything print_explore_summary prints after its first line (which names the seeds and the
// wall time); `merge` prints its own first line.
void print_explore_details(std::ostream& out, const sim::ExploreSummary& summary,
                           const std::vector<std::string>& replays);
// `provenance` holds "build_id" and "run" (the run's configuration: first_seed, seeds or null,
// time_budget_seconds or null, mutant or null, trainer_overrides), copied into the output.
nlohmann::json explore_json(const sim::ExploreSummary& summary, const std::vector<std::string>& replays,
                            const nlohmann::json& provenance);
// One progress line for a terminal: done, percent, rate, elapsed and ETA (or time left with a
// time budget). `total` is absent when the clock alone decides.
std::string progress_line(const sim::ExploreProgress& progress, std::optional<std::uint64_t> total,
                          std::optional<double> time_budget_seconds);
// Coverage: crash point or fault kind -> how many times it fired.
nlohmann::json coverage_json(const sim::ExploreSummary& summary);

}  // namespace ckpt::cli
