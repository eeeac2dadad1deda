// Counterexample files and failure messages. The last file per property and mutant is tracked
// per process, so shrinking leaves only the minimal case on disk.
#include "properties/support/property_check.hpp"

#include <cstdlib>
#include <map>
#include <rapidcheck.h>
#include <sstream>
#include <system_error>

#include "policy/base/mutants.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::properties {
namespace {

// The file each property (and mutant) last wrote in this process: a new counterexample found
// while shrinking replaces it, so only the minimal one is left on disk.
std::map<std::string, std::filesystem::path>& last_written() {
    static std::map<std::string, std::filesystem::path> files;
    return files;
}

std::string counterexample_name(sim::Property property, std::uint64_t seed) {
    // Built by appending: GCC 12 gives a false -Wrestrict warning for "-" + std::string.
    std::string name = "ckptsim-counterexample-";
    name.append(sim::id_of(property));
    if (const auto mutant = mutants::active(); mutant != mutants::Mutant::none) {
        name.append("-").append(mutants::name_of(mutant));
    }
    return name.append("-").append(std::to_string(seed)).append(".json");
}

std::string violation_of(sim::Property property, const sim::ScenarioResult& result) {
    std::string text;
    for (const auto& violation : result.violations) {
        if (violation.property == property) {
            text += (text.empty() ? "" : "\n    ") + violation.message;
        }
    }
    return text;
}

}  // namespace

std::filesystem::path counterexample_dir() {
    if (const char* dir = std::getenv("CKPT_COUNTEREXAMPLE_DIR"); dir != nullptr && *dir != '\0') {
        return dir;
    }
    return std::filesystem::current_path();
}

namespace {

std::string save_scenario(sim::Property property, const sim::Scenario& scenario,
                          const nlohmann::json& expected) {
    sim::ScenarioFile file;
    file.scenario = scenario;
    if (const auto mutant = mutants::active(); mutant != mutants::Mutant::none) {
        file.mutant = mutant;
    }
    file.expected = expected;

    const auto dir = counterexample_dir();
    std::filesystem::create_directories(dir);
    const auto path = std::filesystem::absolute(dir / counterexample_name(property, scenario.seed));
    file.save(path.string());

    // Keyed by property and mutant: seed 0 stands for "any seed".
    auto& previous = last_written()[counterexample_name(property, 0)];
    if (!previous.empty() && previous != path) {
        std::error_code ignored;
        std::filesystem::remove(previous, ignored);
    }
    previous = path;
    return path.string();
}

}  // namespace

std::string save_counterexample(sim::Property property, const sim::ScenarioResult& result,
                                std::optional<bool> determinism_held) {
    return save_scenario(property, result.scenario, sim::verdicts(result, determinism_held));
}

std::optional<std::filesystem::path> last_counterexample(sim::Property property) {
    const auto found = last_written().find(counterexample_name(property, 0));
    if (found == last_written().end()) {
        return std::nullopt;
    }
    return found->second;
}

void classify(const sim::ScenarioResult& result) {
    RC_TAG("outcome " + std::string(sim::to_string(result.outcome)));
    for (const auto& [kind, count] : result.stats.faults) {
        RC_CLASSIFY(count > 0, "fault " + kind);
    }
    for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
        RC_CLASSIFY(result.stats.crash_point_hits[i] > 0, "crash@" + std::string(sim::kCrashPointNames[i]));
    }
}

void fail_property(sim::Property property, const std::string& violation, const std::string& path) {
    const auto& info = sim::info_of(property);
    std::ostringstream message;
    message << "\n"
            << info.id << " (" << info.name << ") violated: " << info.statement << "\n"
            << "  violation: " << violation << "\n"
            << "  shrunk scenario: " << path << "\n"
            << "  replay: ckptsim replay " << path << "\n"
            << "  (RapidCheck prints RC_PARAMS=\"reproduce=...\" at the end of the run to rerun this case)";
    RC_FAIL(message.str());
}

sim::ScenarioResult check_property(sim::Property property, const sim::Scenario& scenario) {
    sim::ScenarioResult result;
    try {
        result = sim::run_scenario(scenario);
    } catch (const std::exception& error) {
        // The simulator turns every failure of the code under test into an outcome; an
        // exception out of it is a bug of its own, and the scenario is still worth keeping.
        const auto path = save_scenario(property, scenario, nlohmann::json::object());
        fail_property(property, std::string("the simulator itself threw: ") + error.what(), path);
    }
    classify(result);
    if (property == sim::Property::P8) {
        const auto again = sim::run_scenario(scenario);
        if (again.trace_hash != result.trace_hash) {
            const auto path = save_counterexample(property, result, false);
            fail_property(
                property,
                "the same scenario gave trace hashes " + result.trace_hash + " and " + again.trace_hash,
                path);
        }
        return result;
    }
    if (!result.held(property)) {
        const auto path = save_counterexample(property, result);
        fail_property(property, violation_of(property, result), path);
    }
    return result;
}

}  // namespace ckpt::properties
