// Tools, not tests: they (re)write files in properties/corpus/ and are disabled so CI never
// changes the tree. Run them after a change that moves a counterexample or a covered fault:
//   build/release/properties/property_tests --gtest_also_run_disabled_tests
//     --gtest_filter='CorpusRegeneration.*'
// then review the diff of properties/corpus/ like any other change.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <rapidcheck.h>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"
#include "properties/support/corpus_dir.hpp"
#include "properties/support/property_check.hpp"
#include "properties/support/quiet_check.hpp"
#include "properties/support/scenario_generators.hpp"
#include "sim/explore/mutation_runner.hpp"
#include "sim/explore/scenario_shrinker.hpp"
#include "sim/scenario/swarm.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::properties {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The generator focus each property's own test uses, so a counterexample found here is the one
// that test would report with the mutant armed.
ScenarioFocus focus_of(sim::Property property) {
    ScenarioFocus focus;
    focus.stream = static_cast<std::uint64_t>(property) + 1;
    if (property == sim::Property::P6 || property == sim::Property::P7) {
        focus.min_ranks = 2;
    }
    if (property == sim::Property::P10) {
        focus.min_early_stopping_callbacks = 1;
    }
    return focus;
}

// Runs the property's RapidCheck test with the mutant armed; on a failure, returns the shrunk
// counterexample check_property saved.
std::optional<fs::path> shrunk_counterexample(sim::Property property, int cases) {
    const auto result =
        check_quietly("CorpusRegeneration/" + std::string(sim::id_of(property)), cases, /*shrink=*/true,
                      [property] { check_property(property, *gen_scenario(focus_of(property))); });
    if (result.template is<rc::detail::SuccessResult>()) {
        return std::nullopt;
    }
    return last_counterexample(property);
}

// A counterexample of the mutant armed on this thread: RapidCheck's shrunk case from the first
// property that fails within `cases` cases; failing that, the swarm's killing scenario from
// run_mutation_catalogue, shrunk by the CLI's shrinker (sim/explore/scenario_shrinker.hpp).
struct Counterexample {
    sim::ScenarioFile file;
    sim::Property property = sim::Property::P1;
    std::string origin;
};

std::optional<Counterexample> find_counterexample(mutants::Mutant mutant, int cases) {
    for (std::size_t i = 0; i < sim::kPropertyCount; ++i) {
        const auto property = static_cast<sim::Property>(i);
        if (const auto path = shrunk_counterexample(property, cases)) {
            Counterexample found{sim::ScenarioFile::load(path->string()), property,
                                 "RapidCheck's shrunk counterexample"};
            fs::remove(*path);
            return found;
        }
    }
    const auto verdict = sim::run_mutation_catalogue({.budget = 4000, .jobs = 2}, {mutant}).front();
    if (!verdict.killed) {
        return std::nullopt;
    }
    const auto property = *verdict.property;
    const sim::ShrinkOptions budget{.max_runs = 5000, .on_reduction = {}};
    const auto shrunk =
        sim::shrink_scenario(*verdict.scenario, sim::property_judge(property, mutant), budget).scenario;
    Counterexample found;
    found.file.scenario = shrunk;
    found.file.mutant = mutant;
    found.file.expected = sim::verdicts(sim::run_scenario(shrunk));
    found.property = property;
    found.origin = "the swarm's kill (seed " + std::to_string(verdict.seed) +
                   "), shrunk by delta debugging: the generators did not reach it within " +
                   std::to_string(cases) + " cases per property";
    return found;
}

TEST(CorpusRegeneration, DISABLED_MutantCounterexamples) {
    constexpr int kCases = 1000;
    for (const auto& info : mutants::catalogue()) {
        const mutants::MutantScope scope(info.mutant);
        auto found = find_counterexample(info.mutant, kCases);
        if (!found) {
            ADD_FAILURE() << info.name << ": neither the properties nor the swarm kill it";
            continue;
        }
        // Only the violated properties are expected: whether a mutant also happens to break
        // another property on this scenario is not what the entry is about.
        json expected = json::object();
        for (const auto& [id, verdict] : found->file.expected.items()) {
            if (verdict == "violated") {
                expected[id] = verdict;
            }
        }
        found->file.expected = expected;
        auto document = found->file.to_json();
        document["note"] = "mutant " + std::string(info.name) + " (" + std::string(info.breaks) +
                           "): " + found->origin + " for " + std::string(sim::id_of(found->property)) + " " +
                           std::string(sim::info_of(found->property).name);
        const auto path = kCorpus / ("mutant-" + std::string(info.name) + ".json");
        std::ofstream(path) << document.dump(2) << "\n";
        std::cout << info.name << ": " << sim::id_of(found->property) << " -> " << path << "\n";
    }
}

// The first swarm seed, from 1, on which `key` fired and every property held.
std::optional<std::uint64_t> first_clean_seed(const std::string& key, const std::set<std::uint64_t>& taken) {
    for (std::uint64_t seed = 1; seed <= 5000; ++seed) {
        if (taken.contains(seed)) {
            continue;
        }
        const auto result = sim::run_scenario(sim::draw_scenario(seed));
        const bool fired = result.stats.faults.contains(key) || result.stats.crashes.contains(key);
        if (fired && result.ok()) {
            return seed;
        }
    }
    return std::nullopt;
}

TEST(CorpusRegeneration, DISABLED_SwarmSeedsCoveringEachFaultKind) {
    std::vector<std::string> keys = {
        "crash",        "corrupt_sidecar",   "corrupt_checkpoint", "rank_death",      "preemption",
        "process_kill", "power_loss:strict", "power_loss:prefix",  "power_loss:torn", "rank_kill"};
    for (const auto target :
         {sim::IoTarget::sidecar_write, sim::IoTarget::sidecar_fsync, sim::IoTarget::sidecar_rename,
          sim::IoTarget::directory_fsync, sim::IoTarget::link_symlink, sim::IoTarget::link_rename}) {
        keys.push_back("io_error:" + std::string(sim::to_string(target)));
    }
    std::set<std::uint64_t> taken;
    for (const auto& key : keys) {
        const auto seed = first_clean_seed(key, taken);
        if (!seed) {
            ADD_FAILURE() << key << ": no swarm seed up to 5000 fires it and holds everything";
            continue;
        }
        taken.insert(*seed);
        sim::ScenarioFile file;
        file.scenario = sim::draw_scenario(*seed);
        const auto result = sim::run_scenario(file.scenario);
        file.expected = sim::verdicts(result, /*determinism_held=*/true);
        auto document = file.to_json();
        document["note"] = "swarm seed " + std::to_string(*seed) + ": the first seed on which " + key +
                           " fires and every property holds";
        auto name = key;
        std::replace(name.begin(), name.end(), ':', '-');
        const auto path = kCorpus / ("swarm-" + name + ".json");
        std::ofstream(path) << document.dump(2) << "\n";
        std::cout << key << ": seed " << *seed << " -> " << path << "\n";
    }
}

}  // namespace
}  // namespace ckpt::properties
