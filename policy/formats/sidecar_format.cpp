// The sidecar's writer (built on state_json_text's state_dict layout) and its reader. The
// error messages are the seed's, word for word: tests and traces compare them.
#include "policy/formats/sidecar_format.hpp"

#include <exception>

#include "policy/base/errors.hpp"
#include "policy/formats/state_json_text.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {

using nlohmann::json;

std::string sidecar_text(const CheckpointEvaluationPolicy& policy) {
    return "{\n  \"checkpoint_eval_state\": " + state_dict_text_at_depth(policy, 2, 1) +
           ",\n  \"version\": " + std::to_string(kSidecarVersion) + "\n}\n";
}

const json* SidecarDocument::policy_state() const {
    if (!payload.is_object()) {
        return nullptr;
    }
    const auto found = payload.find("checkpoint_eval_state");
    return found != payload.end() && found->is_object() ? &*found : nullptr;
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
    }
}

namespace {

SidecarShape shape_of(const json& payload) {
    if (!payload.is_object()) {
        return SidecarShape::not_a_mapping;
    }
    const auto version = payload.find("version");
    if (version == payload.end() || !python::equals_int(*version, kSidecarVersion)) {
        return SidecarShape::unsupported_version;
    }
    const auto policy_state = payload.find("checkpoint_eval_state");
    if (policy_state == payload.end() || !policy_state->is_object()) {
        return SidecarShape::no_policy_state;
    }
    return SidecarShape::well_formed;
}

}  // namespace

SidecarDocument read_sidecar(FileSystem& fs, const std::string& path) {
    SidecarDocument document;
    if (!fs.exists(path)) {
        return document;
    }
    document.shape = SidecarShape::unreadable;
    try {
        document.payload = json::parse(fs.read_file(path));
    } catch (const std::exception&) {
        document.payload = nullptr;
        return document;
    }
    document.shape = shape_of(document.payload);
    return document;
}

}  // namespace ckpt
