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

#include "policy/mutants.hpp"
#include "properties/property_check.hpp"
#include "properties/scenario_generators.hpp"
#include "sim/scenario_file.hpp"

namespace ckpt::properties {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kCorpus = CKPT_CORPUS_DIR;

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
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = cases;
    rc::detail::TestMetadata metadata;
    metadata.id = "CorpusRegeneration/" + std::string(sim::id_of(property));
    const auto result = rc::detail::checkTestable(
        [property] { check_property(property, *gen_scenario(focus_of(property))); }, metadata, params);
    if (result.template is<rc::detail::SuccessResult>()) {
        return std::nullopt;
    }
    return last_counterexample(property);
}

TEST(CorpusRegeneration, DISABLED_MutantCounterexamples) {
    for (const auto& info : mutants::catalogue()) {
        const mutants::MutantScope scope(info.mutant);
        std::optional<fs::path> found;
        sim::Property killer = sim::Property::P1;
        for (std::size_t i = 0; i < sim::kPropertyCount && !found; ++i) {
            killer = static_cast<sim::Property>(i);
            found = shrunk_counterexample(killer, 1000);
        }
        if (!found) {
            ADD_FAILURE() << info.name << ": no property failed within 1000 cases each";
            continue;
        }
        auto file = sim::ScenarioFile::load(found->string());
        // Only the violated properties are expected: whether a mutant also happens to break
        // another property on this scenario is not what the entry is about.
        json expected = json::object();
        for (const auto& [id, verdict] : file.expected.items()) {
            if (verdict == "violated") {
                expected[id] = verdict;
            }
        }
        file.expected = expected;
        auto document = file.to_json();
        document["note"] = "mutant " + std::string(info.name) + " (" + std::string(info.breaks) +
                           "): RapidCheck's shrunk counterexample for " + std::string(sim::id_of(killer)) +
                           " " + std::string(sim::info_of(killer).name);
        const auto path = kCorpus / ("mutant-" + std::string(info.name) + ".json");
        std::ofstream(path) << document.dump(2) << "\n";
        std::cout << info.name << ": " << sim::id_of(killer) << " -> " << path << "\n";
        fs::remove(*found);
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
