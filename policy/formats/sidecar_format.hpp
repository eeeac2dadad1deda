#pragma once

// The sidecar checkpoint_eval_state.json, in one place: its writer (the seed's layout, at
// version 2) and its reader, which says what the file is (missing, unreadable, the wrong shape,
// or well formed) in the order the seed's load rejects it, with the ValueError each rejection
// raises, and migrates the seed's version 1 to version 2. Whether a well-formed sidecar is
// adopted is trigger/sidecar_adoption.hpp's question. Depends on core, python and the ports.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/formats/document_migrations.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

// Version 1 is the seed's {"checkpoint_eval_state": <state_dict>, "version": 1}. Version 2 adds
// "last_evaluated_step": the step of the last evaluation the callback counted, or null when
// unknown, so a resume from an older checkpoint does not count a replayed step again. The
// policy's own state_dict keeps its version (kStateVersion): it is the seed's protocol.
inline constexpr int kSeedSidecarVersion = 1;
inline constexpr int kSidecarVersion = 2;

// The sidecar document {"checkpoint_eval_state": <state_dict>, "last_evaluated_step": <step or
// null>, "version": 2} with a trailing newline, laid out as json.dump(indent=2, sort_keys=True).
// At `version` 1 it is the seed's {"checkpoint_eval_state": ..., "version": 1}, which the
// previous release wrote (so a job can still be rolled back to it); any other version throws
// ValueError.
std::string sidecar_text(const CheckpointEvaluationPolicy& policy,
                         std::optional<std::int64_t> last_evaluated_step, int version = kSidecarVersion);

// The upgrades a sidecar read from disk goes through: 1 -> 2 records last_evaluated_step as
// null (unknown), which keeps the seed's behaviour of evaluating every save event.
const MigrationChain& sidecar_migrations();

// What a sidecar file is, each value a rejection checked after the ones before it.
enum class SidecarShape {
    missing,
    unreadable,                   // cannot be read, or is not JSON
    not_a_mapping,                // the top level is not an object
    unsupported_version,          // "version" absent, or neither 1 nor 2 (by Python's ==)
    no_policy_state,              // "checkpoint_eval_state" absent or not an object
    invalid_last_evaluated_step,  // version 2 whose "last_evaluated_step" is not null or a step
    well_formed,
};

struct SidecarDocument {
    SidecarShape shape = SidecarShape::missing;
    // The parsed document once readable; null before. Once well formed it is migrated to
    // kSidecarVersion (and records "migrated_from_version" when it was older).
    nlohmann::json payload;
    // The version the file declares, once it is one this build reads (1 or 2).
    std::optional<int> version_on_disk;
    // Why an unreadable sidecar was refused (the read error, or untrusted_json's reason: invalid
    // UTF-8, a duplicate key, nesting past the cap, ...). The seed's ValueError keeps its own
    // words; this is for reports such as `inspect`.
    std::string unreadable_reason;

    // The checkpoint_eval_state object whenever the document holds one, even at another version.
    const nlohmann::json* policy_state() const;
    // The last counted step of a well-formed document; nullopt when unknown (null, or version 1).
    std::optional<std::int64_t> last_evaluated_step() const;
    // Raises the seed's ValueError for a malformed sidecar at `path`; returns when missing or well formed.
    void throw_if_malformed(const std::string& path) const;
};

// Reads the sidecar at `path` (exists, then read_file), never raising for its content. The text
// is parsed under untrusted_json's limits, so a duplicate key is unreadable (Python keeps the last).
SidecarDocument read_sidecar(FileSystem& fs, const std::string& path);

}  // namespace ckpt
