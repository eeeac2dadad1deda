// The `--json` form of an OutputDirInspection. Field names are a contract with scripts (see
// docs/cli.md, inspect): add fields freely, never rename or remove one.
#include "policy/inspect/inspection_report.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

json optional_string(const std::optional<std::string>& value) {
    return value ? json(*value) : json();
}

json optional_step(const std::optional<std::int64_t>& value) {
    return value ? json(*value) : json();
}

json findings_json(const std::vector<InspectionFinding>& findings) {
    json out = json::array();
    for (const auto& finding : findings) {
        out.push_back({{"kind", finding.kind}, {"message", finding.message}});
    }
    return out;
}

}  // namespace

json OutputDirInspection::to_json() const {
    json listed = json::array();
    for (const auto& checkpoint : checkpoints) {
        listed.push_back({{"name", checkpoint.name},
                          {"step", checkpoint.step},
                          {"complete", checkpoint.complete},
                          {"detail", checkpoint.complete ? json() : json(checkpoint.detail)},
                          {"recorded_global_step", optional_step(checkpoint.recorded_global_step)}});
    }
    return {
        {"output_dir", output_dir},
        {"consistent", consistent()},
        {"checkpoints", std::move(listed)},
        {"resume",
         {{"checkpoint", optional_string(resume.checkpoint)},
          {"complete", resume.complete},
          {"recorded_global_step", optional_step(resume.recorded_global_step)},
          {"policy_state", resume.policy_state ? *resume.policy_state : json()},
          {"source", resume.source},
          {"fails", !resume.failure.empty()},
          {"failure", resume.failure.empty() ? json() : json(resume.failure)},
          {"fallback_checkpoint", optional_string(resume.fallback_checkpoint)}}},
        {"sidecar",
         {{"present", sidecar.present},
          {"evaluation_count", sidecar.evaluation_count ? json(*sidecar.evaluation_count) : json()},
          {"restored", sidecar.restored},
          {"version", sidecar.version ? json(*sidecar.version) : json()},
          {"last_evaluated_step",
           sidecar.last_evaluated_step ? json(*sidecar.last_evaluated_step) : json()}}},
        {"final_checkpoint",
         {{"target", optional_string(final_checkpoint.target)}, {"valid", final_checkpoint.valid}}},
        {"temp_files", temp_files},
        {"problems", findings_json(problems)},
        {"notes", findings_json(notes)},
    };
}

}  // namespace ckpt
