// `ckptsim mutants`: the kill table of the mutation catalogue. Each kill's counterexample is
// saved shrunk (sim/explore/shrunk_kills.hpp), so a reader gets the smallest scenario that shows it.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "sim/cli/callback_flags.hpp"
#include "sim/cli/callback_mutants_command.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/cli/table_columns.hpp"
#include "sim/explore/mutation_runner.hpp"
#include "sim/explore/shrunk_kills.hpp"
#include "sim/world/scenario_file.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

struct MutantsOptions {
    std::uint64_t budget = 4000;
    unsigned jobs = 0;
    std::vector<std::string> only;
    std::string out_dir = "ckptsim-mutants";
    bool json = false;
    bool list = false;
    bool first_kill = false;
    int shrink_budget = 150;
    CallbackFlags callback;
    std::string callback_mutants;
    bool budget_given = false;
};

// The external callback's kill table: hand-made bugs in its Python, not the catalogue's.
int run_callback_mutants(const MutantsOptions& o) {
    if (!o.callback.given() || o.callback_mutants.empty()) {
        std::cerr
            << "ckptsim mutants: " << (o.callback.given() ? "--callback-command" : "--callback-mutants")
            << " needs " << (o.callback.given() ? "--callback-mutants FILE" : "--callback-command")
            << " (the catalogue's mutants are the C++ port's; a callback's are listed in a mutants file)\n";
        return kExitBadInput;
    }
    if (o.list || o.first_kill) {
        std::cerr << "ckptsim mutants: " << (o.list ? "--list" : "--first-kill")
                  << " is for the catalogue, not for --callback-mutants\n";
        return kExitBadInput;
    }
    CallbackMutantsCommand command;
    command.callback = *o.callback.spec();
    command.mutants_file = o.callback_mutants;
    command.seeds = o.budget_given ? o.budget : 20;
    command.jobs = o.jobs > 0 ? o.jobs : std::max(1U, std::thread::hardware_concurrency());
    command.only = o.only;
    command.out_dir = o.out_dir;
    command.json = o.json;
    return run_callback_mutants_command(command);
}

std::string save_counterexample(const sim::MutantVerdict& verdict,
                                const std::optional<sim::ShrinkResult>& shrunk, const std::string& out_dir) {
    std::filesystem::create_directories(out_dir);
    sim::ScenarioFile file;
    file.scenario = shrunk ? shrunk->scenario : *verdict.scenario;
    file.mutant = verdict.mutant;
    file.expected = sim::verdicts(sim::run_scenario_file(file));
    const auto path = out_dir + "/" + std::string(mutants::name_of(verdict.mutant)) + ".json";
    file.save(path);
    return "ckptsim replay " + path;
}

// "12.35%", "0.40% weak", or "-" when only the first kill was looked for.
std::string rate_text(const sim::MutantVerdict& verdict, bool first_kill) {
    if (first_kill) {
        return "-";
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f%%", 100.0 * verdict.kill_rate());
    return std::string(buffer) + (verdict.weak() ? " weak" : "");
}

int run_mutants(const MutantsOptions& o) {
    if (o.callback.given() || !o.callback_mutants.empty()) {
        return run_callback_mutants(o);
    }
    if (o.list) {
        for (const auto& info : mutants::catalogue()) {
            std::cout << info.name << ": " << info.breaks << "\n";
        }
        return kExitOk;
    }
    std::vector<mutants::Mutant> selection;
    for (const auto& name : o.only) {
        const auto found = mutants::find(name);
        if (!found) {
            std::cerr << "ckptsim mutants: --only: '" << name << "' is not in the catalogue (see --list)\n";
            return kExitBadInput;
        }
        selection.push_back(*found);
    }
    if (selection.empty()) {
        for (const auto& info : mutants::catalogue()) {
            selection.push_back(info.mutant);
        }
    }
    sim::MutationOptions options;
    options.budget = o.budget;
    options.first_kill_only = o.first_kill;
    options.jobs = o.jobs > 0 ? o.jobs : std::max(1U, std::thread::hardware_concurrency());
    const auto verdicts = sim::run_mutation_catalogue(options, selection);
    const auto shrunk = o.shrink_budget > 0 ? sim::shrink_kills(verdicts, options.jobs, o.shrink_budget)
                                            : std::vector<std::optional<sim::ShrinkResult>>(verdicts.size());

    json rows = json::array();
    std::size_t killed = 0;
    if (!o.json) {
        std::cout
            << "mutant                        killed  property  seed      scenarios  kill rate      replay\n";
    }
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        const auto& verdict = verdicts[i];
        const auto replay =
            verdict.killed ? save_counterexample(verdict, shrunk[i], o.out_dir) : std::string();
        killed += verdict.killed ? 1 : 0;
        const std::string name(mutants::name_of(verdict.mutant));
        const std::string property = verdict.property ? std::string(sim::id_of(*verdict.property)) : "-";
        rows.push_back({{"mutant", name},
                        {"killed", verdict.killed},
                        {"property", verdict.property ? json(property) : json(nullptr)},
                        {"seed", verdict.killed ? json(verdict.seed) : json(nullptr)},
                        {"scenarios", verdict.scenarios},
                        {"replay", verdict.killed ? json(replay) : json(nullptr)},
                        {"killing_scenarios", o.first_kill ? json(nullptr) : json(verdict.killing_scenarios)},
                        {"kill_rate", o.first_kill ? json(nullptr) : json(verdict.kill_rate())},
                        {"weak", o.first_kill ? json(nullptr) : json(verdict.weak())},
                        {"shrunk", shrunk[i] ? json{{"before", shrunk[i]->before.describe()},
                                                    {"after", shrunk[i]->after.describe()},
                                                    {"runs", shrunk[i]->runs}}
                                             : json(nullptr)}});
        if (!o.json) {
            std::cout << padded(name, 30) << padded(verdict.killed ? "yes" : "NO", 8) << padded(property, 10)
                      << padded(verdict.killed ? std::to_string(verdict.seed) : "-", 10)
                      << padded(std::to_string(verdict.scenarios), 11)
                      << padded(rate_text(verdict, o.first_kill), 15) << replay << "\n";
        }
    }
    if (o.json) {
        std::cout << json{{"mutants", rows}}.dump() << "\n";
    } else {
        std::cout << "mutation score: " << killed << "/" << verdicts.size() << " killed within " << o.budget
                  << " scenarios each\n";
    }
    return killed == verdicts.size() ? kExitOk : kExitViolation;
}

}  // namespace

Command add_mutants_command(CLI::App& parent) {
    auto o = std::make_shared<MutantsOptions>();
    auto* command =
        parent.add_subcommand("mutants", "Run the swarm against each catalogue mutant: the kill table");
    command->add_option("--budget", o->budget, "Scenarios per mutant before it counts as surviving")
        ->check(unsigned_in(1, std::uint64_t{1} << 40))
        ->capture_default_str();
    command->add_option("--jobs", o->jobs, "Worker threads; 0 (the default) means one per core")
        ->check(unsigned_in(0, kMaxJobs));
    command->add_option("--only", o->only, "Only these mutants (repeatable)");
    command->add_option("--out", o->out_dir, "Where each mutant's counterexample is saved")
        ->capture_default_str();
    command->add_flag("--json", o->json, "Print {\"mutants\": [...]} as JSON");
    command->add_flag("--first-kill", o->first_kill,
                      "Stop each mutant at its first kill (fast; no kill rate)");
    command
        ->add_option("--shrink-budget", o->shrink_budget,
                     "Runs spent shrinking each saved counterexample (0: save the swarm's scenario as found)")
        ->check(unsigned_in(0, 1'000'000))
        ->capture_default_str();
    command->add_flag("--list", o->list, "List the catalogue and what each mutant breaks");
    o->callback.add_to(command);
    command->add_option("--callback-mutants", o->callback_mutants,
                        "With --callback-command: a JSON file of hand-made bugs in the callback's folder, "
                        "judged against the unmodified callback seed by seed (--budget seeds, default 20)");
    return {command, [o, command]() {
                o->budget_given = command->count("--budget") > 0;
                return run_mutants(*o);
            }};
}

}  // namespace ckpt::cli
