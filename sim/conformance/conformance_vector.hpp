// A conformance vector: a configuration, the request lines fed to a fresh policy, and the
// answers the seed gives (from the reference), with the JSON Lines form `ckptsim vectors`
// writes and check-policy reads (docs/policy-protocol.md). Reading refuses a bad file.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/conformance/policy_inputs.hpp"

namespace ckpt::sim::conformance {

struct ConformanceVector {
    std::string id;
    PolicySettings settings;
    std::vector<std::string> inputs;       // request lines, without their newlines
    std::vector<nlohmann::json> expected;  // one answer per input
    std::vector<std::string> covers;  // what the vector exercises: "reason:lower", "error:input_error", ...
    // What each input means, when the vector was generated here (empty when read from a file):
    // it lets a divergence be shrunk by dropping inputs, the answers recomputed by the reference.
    std::vector<PolicyInput> meaning;
};

// A vector built from its inputs' meaning: the lines, the reference's answers and the coverage.
ConformanceVector make_vector(std::string id, const PolicySettings& settings,
                              std::vector<PolicyInput> meaning);

// A vector file that is not one JSON vector per line, or a vector without its fields.
class VectorFormatError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

nlohmann::json vector_to_json(const ConformanceVector& vector);
// `where` names the line in messages, e.g. "vectors.jsonl:3".
ConformanceVector vector_from_json(const nlohmann::json& line, const std::string& where);
std::vector<ConformanceVector> read_vector_file(const std::string& path);

// The flags that start an implementation under `settings`, as `ckptsim policy` takes them.
std::vector<std::string> configuration_flags(const PolicySettings& settings);

}  // namespace ckpt::sim::conformance
