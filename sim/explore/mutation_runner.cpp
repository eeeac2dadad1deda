// One explore per mutant, stopped at the first violation. Violations come sorted by seed, so the
// lowest seed's is the kill whatever the job count.
#include "sim/explore/mutation_runner.hpp"

#include "sim/explore/explorer.hpp"

namespace ckpt::sim {

std::vector<MutantVerdict> run_mutation_catalogue(const MutationOptions& options,
                                                  const std::vector<mutants::Mutant>& selection) {
    std::vector<MutantVerdict> verdicts;
    for (const auto mutant : selection) {
        ExploreOptions explore_options;
        explore_options.seeds = options.budget;
        explore_options.jobs = options.jobs;
        explore_options.mutant = mutant;
        explore_options.stop_at_first_violation = options.first_kill_only;
        const auto summary = explore(explore_options);
        MutantVerdict verdict;
        verdict.mutant = mutant;
        verdict.scenarios = summary.scenarios;
        if (!options.first_kill_only) {
            verdict.killing_scenarios = summary.violations.size();
            verdict.budget_run = summary.scenarios;
        }
        if (!summary.violations.empty()) {
            // Violations are sorted by seed: the first is the kill whatever the job count.
            const auto& first = summary.violations.front();
            verdict.killed = true;
            verdict.property = first.violations.front().property;
            verdict.seed = first.seed;
            verdict.scenarios = first.scenario_index;
            verdict.scenario = first.scenario;
            verdict.message = first.violations.front().message;
        }
        verdicts.push_back(std::move(verdict));
    }
    return verdicts;
}

}  // namespace ckpt::sim
