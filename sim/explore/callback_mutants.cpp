// The original runs once over the seeds; each mutant's copy runs over the same seeds, and the
// two are compared seed by seed. Text is read and written as bytes, so a mutant's `find` and
// `replace` are exact.
#include "sim/explore/callback_mutants.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/explore/explorer.hpp"

namespace ckpt::sim {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw CallbackMutantsError("cannot read " + path.string());
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string string_field(const json& entry, const std::string& where, const char* name) {
    const auto found = entry.find(name);
    if (found == entry.end() || !found->is_string() || found->get<std::string>().empty()) {
        throw CallbackMutantsError(where + "." + name + ": a non-empty string is required");
    }
    return found->get<std::string>();
}

bool plain_name(const std::string& name) {
    return std::all_of(name.begin(), name.end(),
                       [](unsigned char c) { return std::isalnum(c) != 0 || c == '_' || c == '-'; });
}

// Which properties each seed violated, and the seeds the harness failed on.
struct SeedVerdicts {
    std::map<std::uint64_t, std::set<Property>> violated;
    std::map<std::uint64_t, std::string> harness_errors;
    std::map<std::uint64_t, const FoundViolation*> found;
};

SeedVerdicts by_seed(const ExploreSummary& summary) {
    SeedVerdicts out;
    for (const auto& found : summary.violations) {
        for (const auto& violation : found.violations) {
            out.violated[found.seed].insert(violation.property);
        }
        out.found[found.seed] = &found;
    }
    for (const auto& [seed, what] : summary.harness_errors) {
        out.harness_errors.emplace(seed, what);
    }
    return out;
}

ExploreSummary explore_with(const CallbackSpec& callback, const CallbackMutantsOptions& options) {
    ExploreOptions explore_options;
    explore_options.seeds = options.seeds;
    explore_options.jobs = options.jobs;
    explore_options.external_callback = callback;
    return explore(explore_options);
}

}  // namespace

std::vector<CallbackMutant> load_callback_mutants(const fs::path& mutants_file) {
    json document;
    try {
        document = json::parse(read_bytes(mutants_file));
    } catch (const json::exception& error) {
        throw CallbackMutantsError(mutants_file.string() + ": not JSON: " + error.what());
    }
    const auto list = document.is_object() ? document.find("mutants") : document.end();
    if (!document.is_object() || list == document.end() || !list->is_array() || list->empty()) {
        throw CallbackMutantsError(mutants_file.string() + ": mutants: a non-empty array is required");
    }
    std::vector<CallbackMutant> mutants;
    std::set<std::string> names;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const auto& entry = (*list)[i];
        const auto where = "mutants[" + std::to_string(i) + "]";
        if (!entry.is_object()) {
            throw CallbackMutantsError(where + ": an object is required");
        }
        CallbackMutant mutant{string_field(entry, where, "name"), string_field(entry, where, "file"),
                              string_field(entry, where, "find"), string_field(entry, where, "replace")};
        if (!plain_name(mutant.name) || !names.insert(mutant.name).second) {
            throw CallbackMutantsError(where + ".name: '" + mutant.name +
                                       "' must be unique and made of letters, digits, '_' and '-'");
        }
        const fs::path file(mutant.file);
        const auto escapes =
            std::any_of(file.begin(), file.end(), [](const fs::path& part) { return part == ".."; });
        if (file.is_absolute() || escapes) {
            throw CallbackMutantsError(where + ".file: '" + mutant.file +
                                       "' must be relative to the mutants file's folder");
        }
        if (mutant.find == mutant.replace) {
            throw CallbackMutantsError(where + ".replace: equals find, so the mutant changes nothing");
        }
        mutants.push_back(std::move(mutant));
    }
    return mutants;
}

CallbackSpec spec_for_copy(const CallbackSpec& spec, const fs::path& folder, const fs::path& copy) {
    CallbackSpec out = spec;
    bool mentioned = false;
    const auto absolute = fs::absolute(folder).lexically_normal().string();
    for (auto& word : out.argv) {
        // The absolute form first: the folder as given may be a suffix of it.
        for (const auto& mention : {absolute, folder.string()}) {
            bool replaced = false;
            for (auto at = word.find(mention); at != std::string::npos;
                 at = word.find(mention, at + copy.string().size())) {
                word.replace(at, mention.size(), copy.string());
                replaced = true;
            }
            if (replaced) {
                mentioned = true;
                break;
            }
        }
    }
    if (!mentioned) {
        throw CallbackMutantsError("--callback-command never names " + folder.string() +
                                   ", the mutants file's folder, so no mutated copy of it would run");
    }
    return out;
}

void write_mutated_copy(const CallbackMutant& mutant, const fs::path& folder, const fs::path& copy) {
    fs::remove_all(copy);
    fs::create_directories(copy.parent_path());
    fs::copy(folder, copy, fs::copy_options::recursive);
    const auto path = copy / mutant.file;
    auto text = read_bytes(path);
    const auto first = text.find(mutant.find);
    if (first == std::string::npos || text.find(mutant.find, first + 1) != std::string::npos) {
        throw CallbackMutantsError(
            "mutant " + mutant.name + ": its find text must occur exactly once in " + mutant.file +
            (first == std::string::npos ? " (it does not occur)" : " (it occurs more than once)"));
    }
    text.replace(first, mutant.find.size(), mutant.replace);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
        throw CallbackMutantsError("cannot write " + path.string());
    }
}

CallbackMutantsReport run_callback_mutants(const CallbackMutantsOptions& options) {
    auto mutants = load_callback_mutants(options.mutants_file);
    for (const auto& name : options.only) {
        if (std::none_of(mutants.begin(), mutants.end(), [&](const auto& m) { return m.name == name; })) {
            throw CallbackMutantsError("--only: '" + name + "' is not in " + options.mutants_file.string());
        }
    }
    if (!options.only.empty()) {
        std::erase_if(mutants, [&](const auto& m) {
            return std::find(options.only.begin(), options.only.end(), m.name) == options.only.end();
        });
    }
    const auto folder =
        options.mutants_file.parent_path().empty() ? fs::path(".") : options.mutants_file.parent_path();
    const auto work_dir = fs::absolute(options.work_dir);
    // Every command is checked before anything runs.
    std::vector<CallbackSpec> specs;
    for (const auto& mutant : mutants) {
        specs.push_back(spec_for_copy(options.callback, folder, work_dir / mutant.name));
    }

    CallbackMutantsReport report;
    report.seeds = options.seeds;
    const auto original = by_seed(explore_with(options.callback, options));
    report.original_violating_seeds = original.violated.size();
    report.original_harness_errors = original.harness_errors.size();
    for (std::size_t i = 0; i < mutants.size(); ++i) {
        write_mutated_copy(mutants[i], folder, work_dir / mutants[i].name);
        const auto summary = explore_with(specs[i], options);
        const auto mutated = by_seed(summary);
        CallbackMutantVerdict verdict;
        verdict.name = mutants[i].name;
        verdict.callback = specs[i];
        verdict.harness_errors = mutated.harness_errors.size();
        if (!mutated.harness_errors.empty()) {
            verdict.first_harness_error = mutated.harness_errors.begin()->second;
        }
        for (const auto& [seed, properties] : mutated.violated) {
            if (original.harness_errors.contains(seed)) {
                continue;  // the original was not judged there: nothing to differ from
            }
            const auto held = original.violated.find(seed);
            std::optional<Property> first_new;
            for (const auto property : properties) {
                if (held == original.violated.end() || !held->second.contains(property)) {
                    first_new = property;
                    break;
                }
            }
            if (!first_new) {
                continue;
            }
            verdict.killing_seeds += 1;
            if (!verdict.killed) {
                verdict.killed = true;
                verdict.seed = seed;
                verdict.property = first_new;
                verdict.scenario = mutated.found.at(seed)->scenario;
            }
        }
        report.verdicts.push_back(std::move(verdict));
    }
    return report;
}

}  // namespace ckpt::sim
