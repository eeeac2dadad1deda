// Scenario files read, written and run. A save writes a temp file and renames it, so an
// interrupted explore never leaves half a file.
#include "sim/world/scenario_file.hpp"

#include <algorithm>
#include <fstream>

#include "policy/base/untrusted_json.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "sim/base/version.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

// Format 1 had no version fields, so their absence means 1. A newer format is refused rather
// than half-read: its fields may mean something this build does not know.
void check_format(const json& document) {
    const auto format = document.find("scenario_format");
    if (format == document.end()) {
        return;
    }
    if (!format->is_number_integer() || format->get<std::int64_t>() < 1) {
        throw ScenarioError("scenario file field 'scenario_format': must be a positive integer");
    }
    if (format->get<std::int64_t>() > kScenarioFormat) {
        const auto writer = document.find("ckptsim_version");
        throw ScenarioError("scenario file field 'scenario_format': format " + format->dump() +
                            (writer != document.end() && writer->is_string()
                                 ? " (written by ckptsim " + writer->get<std::string>() + ")"
                                 : std::string()) +
                            " is newer than this ckptsim " + std::string(kCkptsimVersion) + " reads (up to " +
                            std::to_string(kScenarioFormat) + "); replay it with a newer ckptsim");
    }
    if (const auto writer = document.find("ckptsim_version");
        writer != document.end() && !writer->is_string()) {
        throw ScenarioError("scenario file field 'ckptsim_version': must be a string");
    }
}

constexpr std::uint64_t kMaxScenarioFileBytes = std::uint64_t{16} << 20;

void parse_callback(const json& block, ScenarioFile& file) {
    if (!block.is_object()) {
        throw ScenarioError("scenario file field 'callback': must be an object");
    }
    for (const auto& [key, value] : block.items()) {
        if (key != "argv" && key != "timeout_ms" && key != "zygote" && key != "restore" &&
            key != "identity") {
            throw ScenarioError("scenario file field 'callback." + key + "': unknown field");
        }
    }
    CallbackSpec spec;
    const auto argv = block.find("argv");
    if (argv == block.end() || !argv->is_array() || argv->empty() ||
        !std::all_of(argv->begin(), argv->end(), [](const json& word) { return word.is_string(); })) {
        throw ScenarioError("scenario file field 'callback.argv': must be a non-empty array of strings");
    }
    spec.argv = argv->get<std::vector<std::string>>();
    if (const auto timeout = block.find("timeout_ms"); timeout != block.end()) {
        if (!timeout->is_number_integer() || timeout->get<std::int64_t>() < 1) {
            throw ScenarioError("scenario file field 'callback.timeout_ms': must be a positive integer");
        }
        spec.timeout = std::chrono::milliseconds(timeout->get<std::int64_t>());
    }
    if (const auto zygote = block.find("zygote"); zygote != block.end()) {
        if (!zygote->is_boolean()) {
            throw ScenarioError("scenario file field 'callback.zygote': must be true or false");
        }
        spec.zygote = zygote->get<bool>();
    }
    if (const auto restore = block.find("restore"); restore != block.end()) {
        if (!restore->is_string() || (*restore != "port" && *restore != "transformers")) {
            throw ScenarioError(
                "scenario file field 'callback.restore': must be \"port\" or \"transformers\"");
        }
        spec.transformers_restore = *restore == "transformers";
    }
    spec.shim_path = default_shim_path();
    file.callback = std::move(spec);
    file.callback_identity = block.value("identity", json());
}

}  // namespace

ScenarioFile ScenarioFile::parse(const json& document) {
    ScenarioFile file;
    if (!document.is_object() || !document.contains("scenario")) {
        file.scenario = Scenario::from_json(document);
        return file;
    }
    for (const auto& [key, value] : document.items()) {
        if (key != "scenario" && key != "mutant" && key != "expected" && key != "note" &&
            key != "ckptsim_version" && key != "scenario_format" && key != "callback") {
            throw ScenarioError("scenario file field '" + key + "': unknown field");
        }
    }
    check_format(document);
    file.scenario = Scenario::from_json(document.at("scenario"));
    if (const auto mutant = document.find("mutant"); mutant != document.end() && !mutant->is_null()) {
        const auto found = mutant->is_string() ? mutants::find(mutant->get<std::string>()) : std::nullopt;
        if (!found) {
            throw ScenarioError("scenario file field 'mutant': not a mutant in the catalogue");
        }
        file.mutant = found;
    }
    if (const auto expected = document.find("expected"); expected != document.end()) {
        if (!expected->is_object()) {
            throw ScenarioError("scenario file field 'expected': must map property ids to held/violated");
        }
        for (const auto& [id, verdict] : expected->items()) {
            if (!parse_property(id) || !verdict.is_string() ||
                (verdict.get<std::string>() != "held" && verdict.get<std::string>() != "violated")) {
                throw ScenarioError("scenario file field 'expected." + id +
                                    "': must be a property id mapped to "
                                    "\"held\" or \"violated\"");
            }
        }
        file.expected = *expected;
    }
    if (const auto callback = document.find("callback"); callback != document.end()) {
        parse_callback(*callback, file);
    }
    return file;
}

ScenarioFile ScenarioFile::load(const std::string& path) {
    // A scenario is a few KiB; the cap and the regular-file check keep `replay /dev/zero` or a
    // FIFO from hanging or filling memory.
    PosixFileSystem fs(kMaxScenarioFileBytes);
    std::string text;
    try {
        text = fs.read_file(path);
    } catch (const FileSystemError& error) {
        throw ScenarioError("cannot read scenario file: " + std::string(error.what()));
    }
    try {
        return parse(parse_untrusted_json(text, "scenario file " + path));
    } catch (const MalformedJson& error) {
        throw ScenarioError(error.what());
    }
}

json ScenarioFile::to_json() const {
    json out = {{"ckptsim_version", kCkptsimVersion},
                {"scenario_format", kScenarioFormat},
                {"scenario", scenario.to_json()}};
    if (mutant) {
        out["mutant"] = mutants::name_of(*mutant);
    }
    if (!expected.empty()) {
        out["expected"] = expected;
    }
    if (callback) {
        out["callback"] = {{"argv", callback->argv},
                           {"timeout_ms", callback->timeout.count()},
                           {"zygote", callback->zygote}};
        if (callback->transformers_restore) {
            out["callback"]["restore"] = "transformers";
        }
        if (!callback_identity.is_null()) {
            out["callback"]["identity"] = callback_identity;
        }
    }
    return out;
}

void ScenarioFile::save(const std::string& path) const {
    // Written whole to a temp name, then renamed, so an interrupted explore never leaves half a file.
    const auto temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::trunc);
        out << to_json().dump(2) << "\n";
        if (!out) {
            throw ScenarioError("cannot write scenario file " + path);
        }
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        throw ScenarioError("cannot write scenario file " + path);
    }
}

ScenarioResult run_scenario_file(const ScenarioFile& file, const RunOptions& options) {
    auto with_callback = options;
    if (file.callback) {
        with_callback.external_callback = &*file.callback;
    }
    if (file.mutant) {
        mutants::MutantScope scope(*file.mutant);
        return run_scenario(file.scenario, with_callback);
    }
    return run_scenario(file.scenario, with_callback);
}

json verdicts(const ScenarioResult& result, std::optional<bool> determinism_held) {
    json out = json::object();
    for (std::size_t i = 0; i < kPropertyCount; ++i) {
        const auto property = static_cast<Property>(i);
        if (property == Property::P8 && !determinism_held) {
            continue;
        }
        const bool held = property == Property::P8 ? *determinism_held : result.held(property);
        out[std::string(id_of(property))] = held ? "held" : "violated";
    }
    return out;
}

}  // namespace ckpt::sim
