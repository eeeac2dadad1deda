// What `explore` prints: the human summary, the JSON summary and coverage. Output depends only
// on the summary, so it is the same for any number of jobs. Depends on sim/explore.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/explore/explorer.hpp"

namespace ckpt::cli {

void print_explore_summary(std::ostream& out, const sim::ExploreSummary& summary,
                           const std::vector<std::string>& replays);
nlohmann::json explore_json(const sim::ExploreSummary& summary, const std::vector<std::string>& replays);
// Coverage: crash point or fault kind -> how many times it fired.
nlohmann::json coverage_json(const sim::ExploreSummary& summary);

}  // namespace ckpt::cli
