#pragma once

// The sidecar checkpoint_eval_state.json, in one place: its writer (the seed's exact bytes) and
// its reader, which says what the file is (missing, unreadable, the wrong shape, or well formed)
// in the order the seed's load rejects it, with the ValueError each rejection raises. Whether a
// well-formed sidecar is adopted is trigger/sidecar_adoption.hpp's question. Depends on core,
// python and the FileSystem port.

#include <string>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

inline constexpr int kSidecarVersion = CheckpointEvaluationPolicy::kStateVersion;

// The sidecar document {"checkpoint_eval_state": <state_dict>, "version": 1} with a trailing
// newline, laid out as the seed's json.dump(indent=2, sort_keys=True) writes it.
std::string sidecar_text(const CheckpointEvaluationPolicy& policy);

// What a sidecar file is, each value a rejection checked after the ones before it.
enum class SidecarShape {
    missing,
    unreadable,           // cannot be read, or is not JSON
    not_a_mapping,        // the top level is not an object
    unsupported_version,  // "version" absent or not kSidecarVersion
    no_policy_state,      // "checkpoint_eval_state" absent or not an object
    well_formed,
};

struct SidecarDocument {
    SidecarShape shape = SidecarShape::missing;
    nlohmann::json payload;  // the parsed document once readable; null before

    // The checkpoint_eval_state object whenever the document holds one, even at another version.
    const nlohmann::json* policy_state() const;
    // Raises the seed's ValueError for a malformed sidecar at `path`; returns when missing or well formed.
    void throw_if_malformed(const std::string& path) const;
};

// Reads the sidecar at `path` (exists, then read_file), never raising for its content.
SidecarDocument read_sidecar(FileSystem& fs, const std::string& path);

}  // namespace ckpt
