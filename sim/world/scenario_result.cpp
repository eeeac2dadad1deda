// How a scenario ended, by name, and its verdicts by property (simulation.hpp).
#include <algorithm>

#include "sim/world/simulation.hpp"

namespace ckpt::sim {

std::string_view to_string(Outcome outcome) noexcept {
    switch (outcome) {
        case Outcome::finished:
            return "finished";
        case Outcome::failed_explained:
            return "failed_explained";
        case Outcome::resume_failed:
            return "resume_failed";
        case Outcome::refused:
            return "refused";
        case Outcome::hung:
            return "hung";
        case Outcome::violated:
            return "violated";
        case Outcome::harness_error:
            return "harness_error";
    }
    return "?";
}

bool ScenarioResult::held(Property property) const noexcept {
    return std::none_of(violations.begin(), violations.end(),
                        [&](const Violation& v) { return v.property == property; });
}

}  // namespace ckpt::sim
