// --mutant NAME resolved against the catalogue (pending mutants included, for their own tests).
#include "sim/cli/mutant_flag.hpp"

#include "sim/scenario/scenario.hpp"

namespace ckpt::cli {

std::optional<mutants::Mutant> find_mutant_flag(const std::string& name) {
    if (name.empty() || name == kNoMutant) {
        return std::nullopt;
    }
    const auto mutant = mutants::find(name);
    if (!mutant) {
        throw sim::ScenarioError("--mutant: '" + name +
                                 "' is not in the catalogue (see ckptsim mutants --list)");
    }
    return mutant;
}

}  // namespace ckpt::cli
