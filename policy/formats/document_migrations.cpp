// MigrationChain and the trainer_state.json chain. Bookkeeping is kept where Transformers'
// TrainerState(**json) will not trip over it: no new top-level keys in a trainer_state.json.
#include "policy/formats/document_migrations.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/callbacks/trainer_control.hpp"

namespace ckpt {

namespace {

using json_pointer = nlohmann::json::json_pointer;

const nlohmann::json* find_at(const nlohmann::json& document, const json_pointer& pointer) {
    try {
        return &document.at(pointer);
    } catch (const nlohmann::json::exception&) {
        return nullptr;  // the path does not exist, or runs through a non-container
    }
}

void write_at(nlohmann::json& document, const json_pointer& pointer, int value,
              const std::string& document_name) {
    try {
        document[pointer] = value;
    } catch (const nlohmann::json::exception&) {
        throw ValueError(document_name + ": cannot record " + pointer.to_string() +
                         ", a value on its path is not a JSON object");
    }
}

}  // namespace

MigrationChain::Layout MigrationChain::top_level(const std::string& version_key) {
    return Layout{json_pointer("/" + version_key), json_pointer("/migrated_from_version"), {}};
}

MigrationChain::MigrationChain(std::string document_name, int current_version, Layout layout)
    : document_name_(std::move(document_name)),
      current_version_(current_version),
      layout_(std::move(layout)) {
    if (current_version_ < 0) {
        throw ValueError(document_name_ + ": the current version must be >= 0, got " +
                         std::to_string(current_version_));
    }
}

MigrationChain& MigrationChain::add(int from_version, int to_version, Step step) {
    const std::string label =
        document_name_ + " migration " + std::to_string(from_version) + " -> " + std::to_string(to_version);
    if (!step) {
        throw ValueError(label + " has no step");
    }
    if (from_version < 0 || from_version >= to_version || to_version > current_version_) {
        throw ValueError(label + " must go upwards within 0.." + std::to_string(current_version_));
    }
    for (const auto& [other_from, other] : upgrades_) {
        if (from_version < other.to_version && other_from < to_version) {
            throw ValueError(label + " overlaps the migration " + std::to_string(other_from) + " -> " +
                             std::to_string(other.to_version));
        }
    }
    upgrades_.emplace(from_version, Upgrade{to_version, std::move(step)});
    return *this;
}

int MigrationChain::version_of(const nlohmann::json& document) const {
    const nlohmann::json* marker = find_at(document, layout_.version);
    if (marker == nullptr || marker->is_null()) {
        return layout_.unmarked ? layout_.unmarked(document) : 0;
    }
    if (!marker->is_number_integer() || marker->get<std::int64_t>() < 0 ||
        marker->get<std::int64_t>() > std::numeric_limits<int>::max()) {
        throw ValueError(document_name_ + ": " + layout_.version.to_string() +
                         " must be a non-negative integer, got " + marker->dump());
    }
    return marker->get<int>();
}

nlohmann::json MigrationChain::migrate(nlohmann::json document) const {
    if (!document.is_object()) {
        throw ValueError(document_name_ + " must be a JSON object, got " + std::string(document.type_name()));
    }
    const int original = version_of(document);
    if (original > current_version_) {
        throw ValueError(document_name_ + " has format version " + std::to_string(original) +
                         ", newer than the newest this build reads (" + std::to_string(current_version_) +
                         "); it was written by a newer ckptsim, so upgrade ckptsim to read it.");
    }
    if (original == current_version_) {
        return document;
    }
    for (const auto& [from_version, upgrade] : upgrades_) {
        if (from_version < original) {
            continue;
        }
        document = upgrade.step(std::move(document));
        if (!document.is_object()) {
            throw ValueError(document_name_ + " migration " + std::to_string(from_version) + " -> " +
                             std::to_string(upgrade.to_version) + " did not produce a JSON object");
        }
    }
    write_at(document, layout_.version, current_version_, document_name_);
    if (find_at(document, layout_.migrated_from) == nullptr) {
        write_at(document, layout_.migrated_from, original, document_name_);
    }
    return document;
}

void MigrationChain::stamp(nlohmann::json& document) const {
    write_at(document, layout_.version, current_version_, document_name_);
}

const MigrationChain& trainer_state_migrations() {
    static const MigrationChain chain = [] {
        MigrationChain::Layout layout{
            json_pointer("/stateful_callbacks/TrainerControl/ckptsim_format_version"),
            json_pointer("/stateful_callbacks/TrainerControl/ckptsim_migrated_from_version"),
            [](const nlohmann::json& document) {
                const auto found = document.find("stateful_callbacks");
                return found == document.end() || found->is_null() ? 0 : 1;
            },
        };
        MigrationChain migrations("trainer_state.json", kTrainerStateFormatVersion, std::move(layout));
        migrations.add(0, 1, [](nlohmann::json document) {
            document["stateful_callbacks"] = {{"TrainerControl", TrainerControl{}.state()}};
            return document;
        });
        return migrations;
    }();
    return chain;
}

nlohmann::json migrate_trainer_state(nlohmann::json trainer_state) {
    return trainer_state_migrations().migrate(std::move(trainer_state));
}

void stamp_trainer_state_version(nlohmann::json& trainer_state) {
    const nlohmann::json* control =
        find_at(trainer_state, json_pointer("/stateful_callbacks/TrainerControl"));
    if (control == nullptr || !control->is_object()) {
        throw ValueError(
            "trainer_state.json: stateful_callbacks has no TrainerControl entry to carry the format version; "
            "refresh stateful_callbacks with the control before stamping");
    }
    trainer_state_migrations().stamp(trainer_state);
}

}  // namespace ckpt
