// `ckptsim inspect OUTPUT_DIR [--json]`: a read-only doctor for a real training output
// directory. The analysis lives in policy/output_dir_inspection; this file parses the
// arguments and words the report.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "policy/base/errors.hpp"
#include "policy/base/untrusted_json.hpp"
#include "policy/inspect/output_dir_inspection.hpp"
#include "policy/inspect/training_args_risks.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/file_system_error.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "policy/python/python_values.hpp"
#include "sim/cli/command.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

// A TrainingArguments dump is a few KiB.
constexpr std::uint64_t kMaxTrainingArgsBytes = std::uint64_t{16} << 20;

struct InspectOptions {
    std::string output_dir;
    std::string training_args;  // a JSON file of TrainingArguments fields, or empty
    bool json = false;
};

// Reads and assesses --training-args; throws ValueError (exit 2) naming the file or the field.
std::optional<TrainingArgsReport> training_args_report(const std::string& path) {
    if (path.empty()) {
        return std::nullopt;
    }
    PosixFileSystem fs(kMaxTrainingArgsBytes);
    std::string text;
    try {
        text = fs.read_file(path);
    } catch (const FileSystemError& error) {
        throw ValueError("--training-args: cannot read " + std::string(error.what()));
    }
    try {
        return assess_training_args(parse_untrusted_json(text, "--training-args '" + path + "'"));
    } catch (const MalformedJson& error) {
        throw ValueError(error.what());
    }
}

json training_args_json(const TrainingArgsReport& report) {
    json findings = json::array();
    for (const auto& finding : report.findings) {
        findings.push_back({{"setting", finding.setting},
                            {"safe", finding.safe},
                            {"properties_at_risk", finding.properties},
                            {"detail", finding.detail}});
    }
    return {{"unknown_keys", report.unknown_keys}, {"findings", findings}};
}

void print_training_args(const TrainingArgsReport& report) {
    std::cout << "training args:\n";
    for (const auto& key : report.unknown_keys) {
        std::cout << "  - [unknown key] " << key << " (not one ckptsim models; ignored)\n";
    }
    for (const auto& finding : report.findings) {
        std::cout << "  - " << (finding.safe ? "[safe] " : "[AT RISK: " + finding.properties + "] ")
                  << finding.setting << ": " << finding.detail << "\n";
    }
}

// Absolute and without a trailing slash, so that an absolute final_checkpoint target written by
// a trainer can be compared with it. Symlinks in the path are kept as the user wrote them.
std::string normalised(const std::string& path) {
    auto text = std::filesystem::absolute(path).lexically_normal().string();
    while (text.size() > 1 && text.back() == '/') {
        text.pop_back();
    }
    return text;
}

// One line for a policy state_dict: what a person checks first after a resume.
std::string describe_policy(const json& state_dict) {
    const auto& state = state_dict.at("state");
    std::string line;
    if (state.value("best_score", json()).is_null()) {
        line = "no best yet";
    } else {
        const auto score = python::float_repr(state["best_score"].get<double>());
        line = state.value("best_is_external", false)
                   ? "best is the external baseline " + score
                   : "best " + checkpoint_dir_name(state["best_step"].get<std::int64_t>()) + " (score " +
                         score + ")";
    }
    line += ", " + state["evaluation_count"].dump() + " evaluations, streak " +
            state["lower_score_streak"].dump() + " of patience " + state_dict["patience"].dump();
    line += state.value("stop_requested", false) ? ", STOP REQUESTED" : ", no stop";
    return line;
}

void print_findings(const char* title, const std::vector<InspectionFinding>& findings) {
    if (findings.empty()) {
        return;
    }
    std::cout << title << " (" << findings.size() << "):\n";
    for (const auto& finding : findings) {
        std::cout << "  - [" << finding.kind << "] " << finding.message << "\n";
    }
}

void print_human(const OutputDirInspection& report) {
    std::cout << "output_dir: " << report.output_dir << "\n";
    if (report.checkpoints.empty()) {
        std::cout << "checkpoints: none\n";
    } else {
        std::cout << "checkpoints:\n";
        for (const auto& checkpoint : report.checkpoints) {
            std::cout << "  " << checkpoint.name
                      << (checkpoint.complete               ? "  complete"
                          : checkpoint.recorded_global_step ? "  MISMATCHED: " + checkpoint.detail
                                                            : "  INCOMPLETE: " + checkpoint.detail)
                      << "\n";
        }
    }
    const auto& resume = report.resume;
    std::cout << "resume: ";
    if (!resume.checkpoint) {
        std::cout << "no checkpoint, a resume starts from scratch";
    } else {
        std::cout << "Transformers picks " << *resume.checkpoint
                  << (resume.complete ? " (complete)"
                      : resume.recorded_global_step
                          ? " (MISMATCHED: it records global_step " +
                                std::to_string(*resume.recorded_global_step) + ", where the resume continues)"
                          : std::string(" (INCOMPLETE)"));
    }
    if (!resume.failure.empty()) {
        std::cout << "; the resume FAILS: " << resume.failure;
        if (resume.fallback_checkpoint) {
            std::cout << " (once fixed it resumes from " << *resume.fallback_checkpoint << ")";
        }
    }
    std::cout << "\n";
    std::cout << "policy after resume: "
              << (resume.policy_state
                      ? describe_policy(*resume.policy_state) + " [from the " + resume.source + "]"
                  : !resume.failure.empty() ? std::string("none, the resume fails")
                                            : std::string("as configured, no saved policy state applies"))
              << "\n";
    // After a failing resume the sidecar verdict is about the resume that follows the fix.
    const auto resume_name = resume.failure.empty()       ? std::string("a resume")
                             : resume.fallback_checkpoint ? "a resume from " + *resume.fallback_checkpoint
                                                          : std::string("a fixed resume");
    std::cout << "sidecar: "
              << (!report.sidecar.present ? std::string("absent")
                  : report.sidecar.evaluation_count
                      ? std::to_string(*report.sidecar.evaluation_count) + " evaluations, " +
                            (report.sidecar.restored ? "restored by " : "not used by ") + resume_name
                      : std::string("unreadable"))
              << "\n";
    const auto& link = report.final_checkpoint;
    std::cout << "final_checkpoint: "
              << (link.target ? "-> " + *link.target + (link.valid ? " (valid)" : " (NOT valid)")
                              : std::string("absent"))
              << "\n";
    print_findings("problems", report.problems);
    print_findings("notes", report.notes);
    std::cout << (report.consistent() ? "verdict: consistent\n"
                                      : "verdict: INCONSISTENT, " + std::to_string(report.problems.size()) +
                                            (report.problems.size() == 1 ? " problem\n" : " problems\n"));
}

int run_inspect(const InspectOptions& options) {
    const auto args_report = training_args_report(options.training_args);
    PosixFileSystem fs;
    OutputDirInspection report;
    const auto directory = normalised(options.output_dir);
    std::string refusal;
    try {
        report = inspect_output_dir(fs, directory);
    } catch (const FileSystemError& error) {
        refusal = "cannot read output directory '" + directory +
                  "': " + std::generic_category().message(error.error_number());
    } catch (const std::exception& error) {
        refusal = "cannot inspect '" + directory + "': " + error.what();
    }
    if (!refusal.empty()) {
        std::cerr << "ckptsim inspect: " << refusal << "\n";
        if (options.json) {
            // A script reading stdout gets a document that says why, not an empty parse error.
            const json document{{"output_dir", directory},
                                {"consistent", false},
                                {"error", {{"kind", "unreadable_output_dir"}, {"message", refusal}}}};
            std::cout << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
        }
        return kExitBadInput;
    }
    if (options.json) {
        auto document = report.to_json();
        if (args_report) {
            document["training_args"] = training_args_json(*args_report);
        }
        std::cout << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    } else {
        print_human(report);
        if (args_report) {
            print_training_args(*args_report);
        }
    }
    return report.consistent() ? kExitOk : kExitViolation;
}

}  // namespace

Command add_inspect_command(CLI::App& parent) {
    auto options = std::make_shared<InspectOptions>();
    auto* command = parent.add_subcommand(
        "inspect",
        "Explain a real training output directory: checkpoints, resume, sidecar, final_checkpoint");
    command->add_option("OUTPUT_DIR", options->output_dir, "The Trainer's output_dir")->required();
    command->add_flag("--json", options->json, "Print one JSON object instead of the report");
    command->add_option("--training-args", options->training_args,
                        "A JSON file of TrainingArguments fields: which Transformers behaviours are in "
                        "force and which properties they put at risk");
    return {command, [options]() { return run_inspect(*options); }};
}

}  // namespace ckpt::cli
