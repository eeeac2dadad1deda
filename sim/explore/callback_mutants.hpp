// Hand-made bugs in a user's Python callback, judged differentially: each mutant is a textual
// change to one file of the callback's folder, applied to a copy of that folder, and it is killed
// when the swarm gives, on some seed, a verdict the unmodified callback does not give on the
// same seed (a property violated that the original held). The copies live under the run's own
// folder; nothing else on the host is written. Bad input throws CallbackMutantsError naming the
// field. Docs: docs/external-callback.md, "Hand-made bugs in Python, caught".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/checks/property.hpp"
#include "sim/external/callback_spec.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

class CallbackMutantsError : public ScenarioError {
  public:
    using ScenarioError::ScenarioError;
};

// One entry of a mutants file: {"name", "file", "find", "replace"} ("class" and "about" are for
// readers). `file` is relative to the mutants file's folder; `find` must occur there exactly once.
struct CallbackMutant {
    std::string name;
    std::string file;
    std::string find;
    std::string replace;
};

// Reads {"mutants": [...]}: names unique and made of [A-Za-z0-9_-], every field a string, `file`
// relative and inside the folder. Throws CallbackMutantsError ("mutants[2].find: ...").
std::vector<CallbackMutant> load_callback_mutants(const std::filesystem::path& mutants_file);

// `spec` with every mention of `folder` in its words (as given, or absolute) replaced by `copy`.
// Throws CallbackMutantsError when no word mentions the folder: the copy would never run.
CallbackSpec spec_for_copy(const CallbackSpec& spec, const std::filesystem::path& folder,
                           const std::filesystem::path& copy);

// Copies `folder` to `copy` (replacing what was there) and applies the mutant. Throws
// CallbackMutantsError when its text does not occur exactly once.
void write_mutated_copy(const CallbackMutant& mutant, const std::filesystem::path& folder,
                        const std::filesystem::path& copy);

struct CallbackMutantsOptions {
    CallbackSpec callback;               // the unmodified callback
    std::filesystem::path mutants_file;  // its folder is the one copied
    std::filesystem::path work_dir;      // the copies go to work_dir/<mutant name>
    std::uint64_t seeds = 20;            // seeds 1..seeds for the original and for every mutant
    unsigned jobs = 1;
    std::vector<std::string> only;  // empty: every mutant in the file
};

struct CallbackMutantVerdict {
    std::string name;
    CallbackSpec callback;  // the mutated copy's
    bool killed = false;
    std::uint64_t seed = 0;            // the first killing seed
    std::optional<Property> property;  // a property it violated there that the original held
    Scenario scenario;                 // the killing seed's scenario
    std::uint64_t killing_seeds = 0;   // seeds with a verdict the original does not give
    std::uint64_t harness_errors = 0;  // seeds the copy failed the harness on (never a kill)
    std::string first_harness_error;
};

struct CallbackMutantsReport {
    std::uint64_t seeds = 0;
    std::uint64_t original_violating_seeds = 0;
    std::uint64_t original_harness_errors = 0;
    std::vector<CallbackMutantVerdict> verdicts;  // in the file's order
};

// Runs the unmodified callback over the seeds, then each mutant's copy over the same seeds.
// Throws CallbackMutantsError for bad input (the file, --only, the command, a mutant's text).
CallbackMutantsReport run_callback_mutants(const CallbackMutantsOptions& options);

}  // namespace ckpt::sim
