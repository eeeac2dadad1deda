// CMake passes CKPTSIM_GIT_DESCRIBE for this file alone (git describe --always --dirty, taken when
// the build was configured), so a commit without a re-configure keeps the older id; CI configures
// every job afresh. The catalogue hash needs no git: it changes whenever a name a summary is
// keyed by is added, removed or renamed.
#include "sim/cli/build_id.hpp"

#include "policy/base/mutants.hpp"
#include "sim/base/trace_hash.hpp"
#include "sim/base/version.hpp"
#include "sim/checks/property.hpp"
#include "sim/scenario/crash_point.hpp"
#include "sim/world/rare_path.hpp"

#ifndef CKPTSIM_GIT_DESCRIBE
#define CKPTSIM_GIT_DESCRIBE "unknown"
#endif

namespace ckpt::cli {
namespace {

std::string catalogue_hash() {
    sim::TraceHash hash;
    const auto name = [&](std::string_view text) {
        hash.update(text);
        hash.update("\n");  // a separator, so ("ab", "c") and ("a", "bc") differ
    };
    name("scenario_format " + std::to_string(sim::kScenarioFormat));
    for (const auto& info : mutants::catalogue()) {
        name(info.name);
    }
    name("pending");
    for (const auto& info : mutants::pending()) {
        name(info.name);
    }
    for (const auto& property : sim::kProperties) {
        name(property.id);
    }
    for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
        name(sim::kCrashPointNames[i]);
    }
    for (std::size_t i = 0; i < sim::kRarePathCount; ++i) {
        name(sim::kRarePathNames[i]);
    }
    return hash.hex();
}

}  // namespace

std::string build_id() {
    return std::string(sim::kCkptsimVersion) + "+" + CKPTSIM_GIT_DESCRIBE + ".c" + catalogue_hash();
}

}  // namespace ckpt::cli
