// The --mutant flag shared by run, replay and explore: a catalogue name arms that mutant, "none"
// (or no flag) means the real code, so a mutant's counterexample can be replayed beside the
// correct behaviour. An unknown name is bad input (sim::ScenarioError, exit 2) naming the flag.
#pragma once

#include <optional>
#include <string>

#include "policy/base/mutants.hpp"

namespace ckpt::cli {

inline constexpr const char* kNoMutant = "none";

std::optional<mutants::Mutant> find_mutant_flag(const std::string& name);

}  // namespace ckpt::cli
