// `explore --junit FILE`: the summary as JUnit XML, because CI systems render it. One test case
// per property; each violating seed is a <failure> carrying the violation and the replay command.
// Output depends only on the summary, so it is the same for any number of jobs.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/explore/explorer.hpp"

namespace ckpt::cli {

void write_junit(std::ostream& out, const sim::ExploreSummary& summary,
                 const std::vector<std::string>& replays);

}  // namespace ckpt::cli
