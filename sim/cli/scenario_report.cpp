// Running a scenario file twice for P8, the report's words and JSON, the fault description and
// the JSON Lines trace file.
#include "sim/cli/scenario_report.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ckpt::cli {

using nlohmann::json;
using sim::Property;

std::string describe_faults(const sim::Scenario& scenario) {
    std::string out;
    for (const auto& fault : scenario.faults) {
        std::string item(sim::to_string(fault.action));
        switch (fault.action) {
            case sim::FaultAction::crash:
                // Appended piece by piece: GCC 12 misreports "literal" + std::string chains
                // (-Wrestrict, its bug 105329).
                item.append("@").append(sim::to_string(fault.point)).append("#");
                item.append(std::to_string(fault.occurrence)).append("(");
                item.append(fault.scope == sim::CrashScope::job
                                ? std::string("job")
                                : std::string("rank ").append(std::to_string(fault.rank)));
                item.append(", ");
                item.append(sim::kCrashKindNames.name(fault.kind));
                if (fault.kind == sim::CrashKind::power_loss) {
                    item.append(":").append(sim::to_string(fault.power_loss));
                }
                item.append(")");
                break;
            case sim::FaultAction::io_error:
                item.append("(").append(sim::to_string(fault.target)).append(")#");
                item.append(std::to_string(fault.occurrence));
                break;
            case sim::FaultAction::rank_death:
                item += "(rank " + std::to_string(fault.rank) + ")@step" + std::to_string(fault.at_step);
                break;
            default:
                item += "@step" + std::to_string(fault.at_step);
                break;
        }
        out += (out.empty() ? "" : ", ") + item;
    }
    return out.empty() ? "none" : out;
}

ScenarioReport run_and_report(const sim::ScenarioFile& file, sim::TraceLineSink* trace,
                              const std::string& out_dir) {
    ScenarioReport report{file, sim::run_scenario_file(file, {.trace_sink = trace}), true, ""};
    const auto again = sim::run_scenario_file(file, {});
    report.deterministic = again.trace_hash == report.result.trace_hash;
    if (!report.deterministic) {
        report.result.violations.push_back(
            {Property::P8,
             "the same scenario gave trace hashes " + report.result.trace_hash + " and " + again.trace_hash});
    }
    if (!report.result.ok() && !out_dir.empty()) {
        std::filesystem::create_directories(out_dir);
        std::string path = out_dir;
        path.append("/seed-").append(std::to_string(file.scenario.seed));
        if (file.mutant) {
            path.append("-").append(mutants::name_of(*file.mutant));
        }
        path.append(".json");
        auto saved = file;
        saved.expected = sim::verdicts(report.result, report.deterministic);
        if (saved.callback) {
            saved.callback_identity = report.result.callback_identity;
        }
        saved.save(path);
        report.replay_command = "ckptsim replay " + path;
    }
    return report;
}

namespace {

// "CheckpointEvaluationTriggerCallback through binding ... (Python 3.11.2, shim 0.1.0)".
std::string describe_callback(const nlohmann::json& identity) {
    if (!identity.is_object()) {
        return "its process never started";
    }
    const auto text = [&](const char* key) {
        const auto found = identity.find(key);
        return found != identity.end() && found->is_string() ? found->get<std::string>() : std::string("?");
    };
    return text("class") + " through " + text("binding") + " (Python " + text("python") + ", shim " +
           text("shim") + ")";
}

}  // namespace

void print_report(std::ostream& out, const ScenarioReport& report) {
    const auto& s = report.file.scenario;
    const auto& r = report.result;
    out << "seed " << s.seed
        << (report.file.mutant ? " (mutant " + std::string(mutants::name_of(*report.file.mutant)) + ")" : "")
        << "\n";
    out << "  ranks " << s.job.ranks
        << (s.job.nodes > 1 ? " on " + std::to_string(s.job.nodes) + " nodes" +
                                  (s.trainer.save_on_each_node ? " (save_on_each_node)" : "")
                            : std::string())
        << ", max_steps " << s.trainer.max_steps << ", save every "
        << (s.trainer.save_strategy == sim::SaveStrategy::steps
                ? std::to_string(s.trainer.save_steps) + " steps"
                : std::string("epoch"))
        << ", patience " << s.callbacks.policy.patience << ", tie "
        << to_string(s.callbacks.policy.tie_policy) << ", save_total_limit " << s.trainer.save_total_limit
        << ", resume rule " << sim::kResumeRuleNames.name(s.trainer.resume_rule) << "\n";
    out << "  faults: " << describe_faults(s) << "\n";
    if (report.file.callback) {
        out << "  callback: external, " << describe_callback(report.result.callback_identity) << "\n";
    }
    out << "outcome: " << sim::to_string(r.outcome) << " (" << r.outcome_detail << ")\n";
    out << "  " << r.stats.steps << " steps, " << r.stats.evaluations << " evaluations, "
        << r.stats.checkpoints << " checkpoints, " << r.stats.incarnations << " incarnations, "
        << r.stats.resumes << " resumes, " << r.stats.hangs << " hangs\n";
    out << "trace hash: " << r.trace_hash << "\n";
    if (r.outcome == sim::Outcome::harness_error) {
        out << "  properties: not judged (the harness failed, not the code under test)\n";
        return;
    }
    for (std::size_t i = 0; i < sim::kPropertyCount; ++i) {
        const auto property = static_cast<Property>(i);
        const bool held = property == Property::P8 ? report.deterministic : r.held(property);
        const auto& info = sim::info_of(property);
        out << "  " << info.id << (info.id.size() == 2 ? "  " : " ") << info.name
            << std::string(12 - std::min<std::size_t>(info.name.size(), 11), ' ')
            << (held ? "held" : "VIOLATED") << "\n";
    }
    for (const auto& violation : r.violations) {
        out << "violation " << sim::id_of(violation.property) << " ("
            << sim::info_of(violation.property).statement << "): " << violation.message << "\n";
    }
    if (!report.replay_command.empty()) {
        out << "replay: " << report.replay_command << "\n";
    }
}

json report_json(const ScenarioReport& report) {
    json violations = json::array();
    for (const auto& violation : report.result.violations) {
        violations.push_back({{"property", sim::id_of(violation.property)}, {"message", violation.message}});
    }
    const auto& stats = report.result.stats;
    json out = {
        {"seed", report.file.scenario.seed},
        {"trace_hash", report.result.trace_hash},
        {"violations", violations},
        {"properties", sim::verdicts(report.result, report.deterministic)},
        {"outcome", sim::to_string(report.result.outcome)},
        {"outcome_detail", report.result.outcome_detail},
        {"scenario", report.file.scenario.to_json()},
        {"stats",
         {{"steps", stats.steps},
          {"evaluations", stats.evaluations},
          {"checkpoints", stats.checkpoints},
          {"incarnations", stats.incarnations},
          {"resumes", stats.resumes},
          {"hangs", stats.hangs},
          {"virtual_seconds", stats.virtual_ms / 1000},
          {"save_window_dangling", stats.save_window_dangling}}},
    };
    if (report.file.mutant) {
        out["mutant"] = mutants::name_of(*report.file.mutant);
    }
    if (!report.replay_command.empty()) {
        out["replay"] = report.replay_command;
    }
    return out;
}

void write_trace(const std::string& path, const TraceSpool& trace) {
    if (path == "-") {
        trace.copy_to(std::cout);
        return;
    }
    // Whole or not at all: a killed run leaves the temp name, never half a trace under `path`.
    const auto temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        trace.copy_to(out);
        if (!out.flush()) {
            std::remove(temp.c_str());
            throw sim::ScenarioError("--trace: cannot write trace file " + path);
        }
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        std::remove(temp.c_str());
        throw sim::ScenarioError("--trace: cannot write trace file " + path);
    }
}

}  // namespace ckpt::cli
