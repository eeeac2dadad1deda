// The build a summary came from, stamped into explore --json so `merge` can refuse shards of
// different builds: the version, the commit the build was configured from, and a hash of the
// names every summary is keyed by (mutant catalogue, properties, crash points, rare paths).
// Depends on sim/base, sim/checks, sim/world and the mutant catalogue.
#pragma once

#include <string>

namespace ckpt::cli {

// "<version>+<git describe at configure time, or 'unknown'>.c<16 hex digits>", for example
// "0.1.0+2240b7a1c3d4.c9f0e...". Equal ids: same release, same commit, same catalogues.
std::string build_id();

}  // namespace ckpt::cli
