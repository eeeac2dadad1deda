// The sidecar's writer (built on state_json_text's state_dict layout), its migrations and its
// reader. The seed's error messages are kept word for word: tests and traces compare them.
#include "policy/formats/sidecar_format.hpp"

#include <exception>
#include <limits>

#include "policy/base/errors.hpp"
#include "policy/base/untrusted_json.hpp"
#include "policy/formats/state_json_text.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

constexpr const char* kLastEvaluatedStepKey = "last_evaluated_step";

// The version a supported sidecar declares. Python's == decides, as the seed's `!= 1` did, so
// 1.0 and true still read as version 1.
std::optional<int> supported_version(const json& payload) {
    const auto version = payload.find("version");
    if (version == payload.end()) {
        return std::nullopt;
    }
    for (const int known : {kSeedSidecarVersion, kSidecarVersion}) {
        if (python::equals_int(*version, known)) {
            return known;
        }
    }
    return std::nullopt;
}

// Null, or a step a Trainer can reach. Our own field, so no Python coercion: we only ever write
// a JSON integer here.
bool is_step_or_null(const json& value) {
    if (value.is_null()) {
        return true;
    }
    if (value.is_number_unsigned()) {
        return value.get<std::uint64_t>() <=
               static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    }
    return value.is_number_integer() && value.get<std::int64_t>() >= 0;
}

}  // namespace

std::string sidecar_text(const CheckpointEvaluationPolicy& policy,
                         std::optional<std::int64_t> last_evaluated_step, int version) {
    if (version == kSeedSidecarVersion) {
        return "{\n  \"checkpoint_eval_state\": " + state_dict_text_at_depth(policy, 2, 1) +
               ",\n  \"version\": " + std::to_string(kSeedSidecarVersion) + "\n}\n";
    }
    if (version != kSidecarVersion) {
        throw ValueError("checkpoint evaluation sidecar version must be 1 or 2, got " +
                         std::to_string(version));
    }
    return "{\n  \"checkpoint_eval_state\": " + state_dict_text_at_depth(policy, 2, 1) + ",\n  \"" +
           kLastEvaluatedStepKey +
           "\": " + (last_evaluated_step ? std::to_string(*last_evaluated_step) : std::string("null")) +
           ",\n  \"version\": " + std::to_string(kSidecarVersion) + "\n}\n";
}

const MigrationChain& sidecar_migrations() {
    static const MigrationChain chain = [] {
        MigrationChain migrations("checkpoint_eval_state.json", kSidecarVersion,
                                  MigrationChain::top_level("version"));
        migrations.add(kSeedSidecarVersion, kSidecarVersion, [](json document) {
            document[kLastEvaluatedStepKey] = nullptr;
            return document;
        });
        return migrations;
    }();
    return chain;
}

const json* SidecarDocument::policy_state() const {
    if (!payload.is_object()) {
        return nullptr;
    }
    const auto found = payload.find("checkpoint_eval_state");
    return found != payload.end() && found->is_object() ? &*found : nullptr;
}

std::optional<std::int64_t> SidecarDocument::last_evaluated_step() const {
    if (shape != SidecarShape::well_formed) {
        return std::nullopt;
    }
    const auto& step = payload.at(kLastEvaluatedStepKey);
    return step.is_null() ? std::nullopt : std::optional<std::int64_t>(step.get<std::int64_t>());
}

void SidecarDocument::throw_if_malformed(const std::string& path) const {
    switch (shape) {
        case SidecarShape::missing:
        case SidecarShape::well_formed:
            return;
        case SidecarShape::unreadable:
            // Failing loudly beats silently resetting patience, which could retain a worse model.
            throw ValueError("Cannot load checkpoint evaluation metadata from " + path);
        case SidecarShape::not_a_mapping:
            throw ValueError("Checkpoint evaluation metadata at " + path + " must be a mapping");
        case SidecarShape::unsupported_version: {
            const auto version = payload.find("version");
            throw ValueError("Unsupported checkpoint evaluation metadata version at " + path + ": " +
                             (version == payload.end() ? std::string("None") : python::repr(*version)));
        }
        case SidecarShape::no_policy_state:
            throw ValueError("Checkpoint evaluation metadata at " + path + " has no policy state");
        case SidecarShape::invalid_last_evaluated_step: {
            const auto step = payload.find(kLastEvaluatedStepKey);
            throw ValueError("Checkpoint evaluation metadata at " + path +
                             " has an invalid last_evaluated_step: " +
                             (step == payload.end() ? std::string("missing") : step->dump()));
        }
    }
}

namespace {

// Classifies `document` in the seed's order of rejection and, once it is well formed, migrates
// its payload to kSidecarVersion.
void classify_and_migrate(SidecarDocument& document) {
    auto& payload = document.payload;
    if (!payload.is_object()) {
        document.shape = SidecarShape::not_a_mapping;
        return;
    }
    document.version_on_disk = supported_version(payload);
    if (!document.version_on_disk) {
        document.shape = SidecarShape::unsupported_version;
        return;
    }
    if (document.policy_state() == nullptr) {
        document.shape = SidecarShape::no_policy_state;
        return;
    }
    if (*document.version_on_disk == kSidecarVersion) {
        const auto step = payload.find(kLastEvaluatedStepKey);
        if (step == payload.end() || !is_step_or_null(*step)) {
            document.shape = SidecarShape::invalid_last_evaluated_step;
            return;
        }
    }
    // The chain reads a JSON integer marker; a seed file may say 1.0 or true.
    payload["version"] = *document.version_on_disk;
    payload = sidecar_migrations().migrate(std::move(payload));
    document.shape = SidecarShape::well_formed;
}

}  // namespace

SidecarDocument read_sidecar(FileSystem& fs, const std::string& path) {
    SidecarDocument document;
    if (!fs.exists(path)) {
        return document;
    }
    document.shape = SidecarShape::unreadable;
    try {
        document.payload = parse_untrusted_json(fs.read_file(path), path);
    } catch (const std::exception& error) {
        document.payload = nullptr;
        document.unreadable_reason = error.what();
        return document;
    }
    classify_and_migrate(document);
    return document;
}

}  // namespace ckpt
