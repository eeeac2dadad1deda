// The vector's JSON line and its coverage tags. Tags are derived from the expected answers and
// the configuration, so the file itself shows what it covers.
#include "sim/conformance/conformance_vector.hpp"

#include <algorithm>
#include <fstream>

#include "sim/conformance/reference_answers.hpp"

namespace ckpt::sim::conformance {
namespace {

using nlohmann::json;

void add_tag(std::vector<std::string>& tags, std::string tag) {
    if (std::find(tags.begin(), tags.end(), tag) == tags.end()) {
        tags.push_back(std::move(tag));
    }
}

// An observe at exactly patience_start_step that does not improve: the first step that counts.
bool at_warmup_boundary(const PolicySettings& settings, const PolicyInput& input, const json& answer) {
    const auto* in = std::get_if<ObserveInput>(&input);
    return settings.patience_start_step > 0 && in != nullptr && in->step.value &&
           *in->step.value == settings.patience_start_step && answer.contains("decision") &&
           !answer["decision"]["should_save"].get<bool>();
}

std::vector<std::string> coverage(const PolicySettings& settings, const std::vector<PolicyInput>& meaning,
                                  const std::vector<json>& expected) {
    std::vector<std::string> tags{std::string("tie_policy:") + tie_policy_name(settings.tie_policy)};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto& answer = expected[i];
        if (answer.contains("decision")) {
            add_tag(tags, "reason:" + answer["decision"]["reason"].get<std::string>());
            if (answer["decision"]["should_stop"].get<bool>()) {
                add_tag(tags, "stop");
            }
        }
        if (answer.contains("error")) {
            add_tag(tags, "error:" + answer["error"]["kind"].get<std::string>());
        }
        if (at_warmup_boundary(settings, meaning[i], answer)) {
            add_tag(tags, "warmup_boundary");
        }
        if (std::holds_alternative<BaselineInput>(meaning[i])) {
            add_tag(tags, "baseline");
        }
        if (std::holds_alternative<LoadInput>(meaning[i])) {
            add_tag(tags, answer.contains("error") ? "load:refused" : "load:accepted");
        }
    }
    std::sort(tags.begin(), tags.end());
    return tags;
}

TiePolicy tie_policy_named(const std::string& name, const std::string& where) {
    for (const auto policy : {TiePolicy::reset, TiePolicy::ignore, TiePolicy::stop, TiePolicy::count}) {
        if (name == tie_policy_name(policy)) {
            return policy;
        }
    }
    throw VectorFormatError(where + ": config.tie_policy '" + name + "' is not reset, ignore, stop or count");
}

template <typename T>
T field(const json& object, const char* key, const std::string& where) {
    const auto found = object.find(key);
    if (found == object.end()) {
        throw VectorFormatError(where + ": missing field '" + key + "'");
    }
    try {
        return found->get<T>();
    } catch (const json::exception&) {
        throw VectorFormatError(where + ": field '" + key + "' has the wrong type");
    }
}

}  // namespace

ConformanceVector make_vector(std::string id, const PolicySettings& settings,
                              std::vector<PolicyInput> meaning) {
    ConformanceVector vector{
        std::move(id),     settings, input_lines(meaning), reference_answers(settings, meaning), {},
        std::move(meaning)};
    vector.covers = coverage(settings, vector.meaning, vector.expected);
    return vector;
}

json vector_to_json(const ConformanceVector& vector) {
    return {{"id", vector.id},
            {"config",
             {{"patience", vector.settings.patience},
              {"tie_policy", tie_policy_name(vector.settings.tie_policy)},
              {"patience_start_step", vector.settings.patience_start_step}}},
            {"inputs", vector.inputs},
            {"expected", vector.expected},
            {"covers", vector.covers}};
}

ConformanceVector vector_from_json(const json& line, const std::string& where) {
    if (!line.is_object()) {
        throw VectorFormatError(where + ": a vector must be a JSON object");
    }
    const auto config = field<json>(line, "config", where);
    if (!config.is_object()) {
        throw VectorFormatError(where + ": field 'config' must be an object");
    }
    ConformanceVector vector;
    vector.id = field<std::string>(line, "id", where);
    vector.settings.patience = field<std::int64_t>(config, "patience", where);
    vector.settings.tie_policy = tie_policy_named(field<std::string>(config, "tie_policy", where), where);
    vector.settings.patience_start_step = field<std::int64_t>(config, "patience_start_step", where);
    vector.inputs = field<std::vector<std::string>>(line, "inputs", where);
    vector.expected = field<std::vector<json>>(line, "expected", where);
    if (line.contains("covers")) {
        vector.covers = field<std::vector<std::string>>(line, "covers", where);
    }
    if (vector.inputs.size() != vector.expected.size()) {
        throw VectorFormatError(where + ": 'inputs' and 'expected' differ in length");
    }
    for (const auto& answer : vector.expected) {
        if (!answer.is_object()) {
            throw VectorFormatError(where + ": every 'expected' answer must be an object");
        }
    }
    return vector;
}

std::vector<ConformanceVector> read_vector_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw VectorFormatError("--vectors: cannot read '" + path + "'");
    }
    std::vector<ConformanceVector> vectors;
    std::size_t number = 0;
    for (std::string text; std::getline(in, text);) {
        ++number;
        if (text.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        const std::string where = path + ":" + std::to_string(number);
        const auto line = json::parse(text, nullptr, false);
        if (line.is_discarded()) {
            throw VectorFormatError(where + ": not a JSON line");
        }
        vectors.push_back(vector_from_json(line, where));
    }
    if (vectors.empty()) {
        throw VectorFormatError("--vectors: '" + path + "' holds no vectors");
    }
    return vectors;
}

std::vector<std::string> configuration_flags(const PolicySettings& settings) {
    return {"--patience",
            std::to_string(settings.patience),
            "--tie-policy",
            tie_policy_name(settings.tie_policy),
            "--patience-start-step",
            std::to_string(settings.patience_start_step)};
}

}  // namespace ckpt::sim::conformance
