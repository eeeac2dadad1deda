// Versioned upgrades for the JSON documents read back after a crash or an upgrade (the
// trainer_state.json chain is defined here). Migration is ordered, keeps the first origin, and
// refuses a document newer than this build (ValueError) rather than drop fields it does not know.
// Depends on base/ and callbacks/.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ckpt {

// Versions and upgrades for the JSON documents we read back after a crash or an upgrade, after
// Lightning's utilities/migration: each format change registers one upgrade step, and loading
// applies, in order, every step at or above the document's version, then records the version
// the document started at. Versions with no format change need no step; they are passed over.
// Unlike Lightning, which warns and carries on, a document newer than this build is refused:
// silently dropping fields we do not know could lose a stop decision or a best checkpoint.
class MigrationChain {
  public:
    using Step = std::function<nlohmann::json(nlohmann::json document)>;
    // The version of a document that carries no version marker.
    using UnmarkedVersion = std::function<int(const nlohmann::json& document)>;

    // Where a document keeps its bookkeeping. JSON pointers, because a format we do not own
    // may have no safe top-level spot (see trainer_state_migrations()).
    struct Layout {
        nlohmann::json::json_pointer version;
        nlohmann::json::json_pointer migrated_from;
        UnmarkedVersion unmarked;  // empty: an unmarked document is version 0
    };

    // Bookkeeping at the top level: `version_key` and "migrated_from_version".
    static Layout top_level(const std::string& version_key);

    // `document_name` names the document in errors ("checkpoint_eval_state.json").
    MigrationChain(std::string document_name, int current_version, Layout layout);

    // Registers the upgrade from `from_version` to `to_version`. Versions strictly between the
    // two were never written. Throws ValueError unless 0 <= from < to <= current and the step
    // overlaps no other.
    MigrationChain& add(int from_version, int to_version, Step step);

    int current_version() const noexcept { return current_version_; }
    // The marker's value, or the Layout's answer for an unmarked document. Throws ValueError
    // for a marker that is not a non-negative integer.
    int version_of(const nlohmann::json& document) const;
    // Upgrades `document` to current_version() and records the version it had, once: a
    // document migrated again keeps its first origin. A current document is returned as is.
    // Throws ValueError for a non-object, a malformed marker, or a version newer than current.
    nlohmann::json migrate(nlohmann::json document) const;
    // Marks a freshly written document with current_version().
    void stamp(nlohmann::json& document) const;

  private:
    struct Upgrade {
        int to_version;
        Step step;
    };

    std::string document_name_;
    int current_version_;
    Layout layout_;
    std::map<int, Upgrade> upgrades_;  // by from_version, so migrate() walks them in order
};

// trainer_state.json is Transformers' document, and Transformers loads it with
// TrainerState(**json), so an unknown top-level key makes a real Trainer fail to resume
// (TypeError). Our version marker therefore lives where Transformers provably ignores it:
// beside "args" and "attributes" in stateful_callbacks["TrainerControl"] (its restore reads
// only those two), as "ckptsim_format_version", with "ckptsim_migrated_from_version" next to
// it. Every Transformers release with stateful callbacks saves the control's entry. A file
// without the marker (every file a real Trainer writes) is version 1 when it has
// "stateful_callbacks" and version 0 when it predates them.
//
// Version 1 is the stateful-callbacks format. Upgrading 0 -> 1 adds "stateful_callbacks" with
// a fresh TrainerControl entry: a pre-stateful checkpoint saved no flags, so a fresh control is
// exactly what resuming it always gave, and it gives the marker its home. Every other callback
// finds no saved state and starts fresh (with a warning from plan_callback_restore), which is
// what issue #28544 users got.
constexpr int kTrainerStateFormatVersion = 1;

const MigrationChain& trainer_state_migrations();
nlohmann::json migrate_trainer_state(nlohmann::json trainer_state);
// Call after stateful_callbacks (with the control's entry) has been refreshed; throws
// ValueError when there is no TrainerControl entry to carry the marker.
void stamp_trainer_state_version(nlohmann::json& trainer_state);

}  // namespace ckpt
