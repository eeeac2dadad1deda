// `ckptsim shrink FILE [--out FILE] [--property P] [--budget N]`: the smallest scenario that still
// violates the same property under the same mutant, one printed line per accepted reduction.
// Exit 0 written, 1 when the input does not fail (nothing to shrink), 2 for a bad file or flag.
// The output never replaces the input and is written whole (a temp file renamed).
#include <filesystem>
#include <iostream>
#include <memory>

#include "sim/cli/command.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/explore/scenario_shrinker.hpp"
#include "sim/world/scenario_file.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::cli {
namespace {

namespace fs = std::filesystem;

struct ShrinkCommandOptions {
    std::string path;
    std::string out;
    std::string property;
    int budget = 2000;
};

// FILE.json -> FILE.shrunk.json beside it.
std::string default_out(const std::string& path) {
    fs::path out(path);
    const auto stem = out.extension() == ".json" ? out.stem().string() : out.filename().string();
    return (out.parent_path() / (stem + ".shrunk.json")).string();
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::weakly_canonical(a, error) == fs::weakly_canonical(b, error);
}

std::string armed(const sim::ScenarioFile& file) {
    if (file.callback) {
        return "with the external callback";
    }
    return file.mutant ? "under mutant " + std::string(mutants::name_of(*file.mutant)) : "on the real code";
}

std::string property_words(sim::Property property) {
    return std::string(sim::id_of(property)) + " (" + std::string(sim::info_of(property).name) + ")";
}

// The property to keep violated: the one asked for, else the first the input violates (P8 when
// only a second run disagrees). Empty when the input does not fail that way.
std::optional<sim::Property> failing_property(const sim::ScenarioFile& file,
                                              std::optional<sim::Property> asked) {
    const auto result = sim::run_scenario_file(file);
    const bool nondeterministic = sim::run_scenario_file(file).trace_hash != result.trace_hash;
    const auto violated = [&](sim::Property p) {
        return p == sim::Property::P8 ? nondeterministic : !result.held(p);
    };
    if (asked) {
        return violated(*asked) ? asked : std::nullopt;
    }
    if (!result.violations.empty()) {
        return result.violations.front().property;
    }
    return nondeterministic ? std::optional(sim::Property::P8) : std::nullopt;
}

void print_change(const sim::ShrinkResult& shrunk) {
    const auto& b = shrunk.before;
    const auto& a = shrunk.after;
    const auto arrow = [](auto from, auto to) { return std::to_string(from) + " -> " + std::to_string(to); };
    std::cout << "shrunk in " << shrunk.runs << " runs, " << shrunk.reductions.size() << " reductions"
              << (shrunk.budget_exhausted ? " (the budget ran out; --budget for more)" : "") << ":\n"
              << "  faults " << arrow(b.faults, a.faults) << ", steps " << arrow(b.steps, a.steps)
              << ", ranks " << arrow(b.ranks, a.ranks) << ", scores " << arrow(b.scores, a.scores)
              << ", script " << arrow(b.script, a.script) << ", settings " << arrow(b.settings, a.settings)
              << "\n";
}

int run_shrink(const ShrinkCommandOptions& o) {
    std::optional<sim::Property> asked;
    if (!o.property.empty() && !(asked = sim::parse_property(o.property))) {
        std::cerr << "ckptsim shrink: --property: '" << o.property << "' is not a property id (P1 to P14)\n";
        return kExitBadInput;
    }
    const auto out = o.out.empty() ? default_out(o.path) : o.out;
    if (same_file(out, o.path)) {
        std::cerr << "ckptsim shrink: --out: " << out
                  << " is the input file; shrink never overwrites its input\n";
        return kExitBadInput;
    }
    sim::ScenarioFile file;
    try {
        file = sim::ScenarioFile::load(o.path);
    } catch (const sim::ScenarioError& error) {
        throw sim::ScenarioError(o.path + ": " + error.what());
    }
    const auto property = failing_property(file, asked);
    if (!property) {
        std::cerr << "ckptsim shrink: " << o.path << " does not violate "
                  << (asked ? property_words(*asked) : std::string("any property")) << " " << armed(file)
                  << ": nothing to shrink\n";
        return kExitViolation;
    }
    std::cout << "shrinking " << o.path << ": keeping " << property_words(*property) << " violated "
              << armed(file) << "\n";
    sim::ShrinkOptions options;
    options.max_runs = o.budget;
    options.on_reduction = [](const sim::Reduction& r) {
        std::cout << "  - " << r.what << "  => " << r.size.describe() << "\n";
    };
    const auto shrunk = sim::shrink_scenario(
        file.scenario, sim::property_judge(*property, file.mutant, file.callback), options);
    print_change(shrunk);
    sim::ScenarioFile minimal;
    minimal.scenario = shrunk.scenario;
    minimal.mutant = file.mutant;
    minimal.callback = file.callback;
    const auto result = sim::run_scenario_file(minimal);
    minimal.callback_identity = result.callback_identity;
    minimal.expected = sim::verdicts(result);
    minimal.save(out);
    std::cout << "wrote " << out << "\nreplay: ckptsim replay " << out << "\n";
    return kExitOk;
}

}  // namespace

Command add_shrink_command(CLI::App& parent) {
    auto o = std::make_shared<ShrinkCommandOptions>();
    auto* command = parent.add_subcommand(
        "shrink",
        "Minimise a failing scenario file, keeping the same property violated under the same mutant");
    command->add_option("file", o->path, "A scenario file that violates a property")->required();
    command->add_option("--out", o->out,
                        "Where the minimal scenario goes (default: FILE.shrunk.json beside FILE)");
    command->add_option("--property", o->property,
                        "The property to keep violated (default: the first one the file violates)");
    command->add_option("--budget", o->budget, "Candidate runs before the shrink stops where it is")
        ->check(unsigned_in(1, 1'000'000))
        ->capture_default_str();
    return {command, [o]() { return run_shrink(*o); }};
}

}  // namespace ckpt::cli
