// The machine trace (JSON Lines, see docs/reading-a-run.md) read back for the people-facing
// renderers: each line parsed once, with the training step in force when it was written and the
// job's rank count. Reads only the trace's own fields, never the simulator's state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckpt::cli {

struct TraceLine {
    std::size_t number = 0;  // 0-based; line 0 is the scenario
    std::int64_t time_ms = 0;
    int incarnation = 0;
    int rank = -1;  // -1: the job
    std::string kind;
    nlohmann::json line;    // the whole parsed line
    std::int64_t step = 0;  // the last training step any line named (resume, evaluation, save)
};

struct ParsedTrace {
    std::vector<TraceLine> lines;
    int ranks = 1;
    std::int64_t max_steps = 0;
};

ParsedTrace parse_trace(const std::vector<std::string>& lines);

// "checkpoint-40" -> 40; -1 when the name carries no step.
std::int64_t step_of_checkpoint_name(const std::string& name);

}  // namespace ckpt::cli
