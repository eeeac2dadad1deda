// The table and the saved scenario files; the differential judging is the library's.
#include "sim/cli/callback_mutants_command.hpp"

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "sim/cli/command.hpp"
#include "sim/cli/table_columns.hpp"
#include "sim/explore/callback_mutants.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::cli {

using nlohmann::json;

namespace {

std::string save_kill(const sim::CallbackMutantVerdict& verdict, const std::string& out_dir) {
    sim::ScenarioFile file;
    file.scenario = verdict.scenario;
    file.callback = verdict.callback;
    const auto result = sim::run_scenario_file(file);
    file.expected = sim::verdicts(result);
    file.callback_identity = result.callback_identity;
    const auto path = out_dir + "/" + verdict.name + ".json";
    file.save(path);
    return "ckptsim replay " + path;
}

}  // namespace

int run_callback_mutants_command(const CallbackMutantsCommand& command) {
    sim::CallbackMutantsOptions options;
    options.callback = command.callback;
    options.mutants_file = command.mutants_file;
    options.work_dir = std::filesystem::path(command.out_dir) / "callback-copies";
    options.seeds = command.seeds;
    options.jobs = command.jobs;
    options.only = command.only;
    sim::CallbackMutantsReport report;
    try {
        report = sim::run_callback_mutants(options);
    } catch (const sim::CallbackMutantsError& error) {
        std::cerr << "ckptsim mutants: " << error.what() << "\n";
        return kExitBadInput;
    }
    json rows = json::array();
    std::size_t killed = 0;
    if (!command.json) {
        std::cout << "the unmodified callback over seeds 1-" << report.seeds << ": "
                  << report.original_violating_seeds << " seeds violate a property, "
                  << report.original_harness_errors << " harness errors (a mutant is killed by a verdict "
                  << "the unmodified callback does not give on the same seed)\n"
                  << "mutant                        killed  property  seed      killing seeds  harness "
                     "errors  replay\n";
    }
    for (const auto& verdict : report.verdicts) {
        const auto replay = verdict.killed ? save_kill(verdict, command.out_dir) : std::string();
        killed += verdict.killed ? 1 : 0;
        const std::string property = verdict.property ? std::string(sim::id_of(*verdict.property)) : "-";
        rows.push_back({{"mutant", verdict.name},
                        {"killed", verdict.killed},
                        {"property", verdict.property ? json(property) : json(nullptr)},
                        {"seed", verdict.killed ? json(verdict.seed) : json(nullptr)},
                        {"killing_seeds", verdict.killing_seeds},
                        {"harness_errors", verdict.harness_errors},
                        {"first_harness_error",
                         verdict.harness_errors > 0 ? json(verdict.first_harness_error) : json(nullptr)},
                        {"replay", verdict.killed ? json(replay) : json(nullptr)}});
        if (!command.json) {
            std::cout << padded(verdict.name, 30) << padded(verdict.killed ? "yes" : "NO", 8)
                      << padded(property, 10)
                      << padded(verdict.killed ? std::to_string(verdict.seed) : "-", 10)
                      << padded(std::to_string(verdict.killing_seeds), 15)
                      << padded(std::to_string(verdict.harness_errors), 16) << replay << "\n";
        }
    }
    if (command.json) {
        std::cout << json{{"seeds", report.seeds},
                          {"original_violating_seeds", report.original_violating_seeds},
                          {"original_harness_errors", report.original_harness_errors},
                          {"mutants", rows}}
                         .dump()
                  << "\n";
    } else {
        std::cout << "mutation score: " << killed << "/" << report.verdicts.size() << " killed within "
                  << report.seeds << " seeds each\n";
    }
    return killed == report.verdicts.size() ? kExitOk : kExitViolation;
}

}  // namespace ckpt::cli
