// Parses the machine trace and carries the training step forward from the lines that name one.
#include "sim/cli/trace_lines.hpp"

#include <algorithm>

namespace ckpt::cli {
namespace {

std::int64_t int_or(const nlohmann::json& line, const char* key, std::int64_t fallback) {
    const auto it = line.find(key);
    return it != line.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

// The training step a line names, if any: evaluations, saves, commits, link targets, resumes.
std::int64_t step_named(const nlohmann::json& line, const std::string& kind, std::int64_t current) {
    if (kind == "evaluation" || kind == "checkpoint" || kind == "commit") {
        return int_or(line, "step", current);
    }
    if (kind == "link") {
        const auto step = step_of_checkpoint_name(line.value("target", std::string()));
        return step >= 0 ? std::max(step, current) : current;
    }
    if (kind == "start") {
        return int_or(line, "resume_step", 0);
    }
    return current;
}

}  // namespace

std::int64_t step_of_checkpoint_name(const std::string& name) {
    const auto dash = name.rfind("checkpoint-");
    if (dash == std::string::npos) {
        return -1;
    }
    try {
        return std::stoll(name.substr(dash + 11));
    } catch (const std::exception&) {
        return -1;
    }
}

ParsedTrace parse_trace(const std::vector<std::string>& lines) {
    ParsedTrace parsed;
    std::int64_t step = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        TraceLine entry;
        entry.number = i;
        entry.line = nlohmann::json::parse(lines[i]);
        entry.time_ms = int_or(entry.line, "t", 0);
        entry.incarnation = static_cast<int>(int_or(entry.line, "inc", 0));
        entry.rank = static_cast<int>(int_or(entry.line, "rank", -1));
        entry.kind = entry.line.value("kind", std::string());
        if (entry.kind == "scenario") {
            parsed.ranks = static_cast<int>(int_or(entry.line, "ranks", parsed.ranks));
            parsed.max_steps = int_or(entry.line, "max_steps", 0);
        } else if (entry.kind == "start") {
            parsed.ranks = static_cast<int>(int_or(entry.line, "ranks", parsed.ranks));
        }
        step = step_named(entry.line, entry.kind, step);
        entry.step = step;
        parsed.lines.push_back(std::move(entry));
    }
    return parsed;
}

}  // namespace ckpt::cli
