// P8 determinism: a counterexample is only worth something if replaying it gives the same run.
// check_property runs each scenario twice in this process; the second property also replays it
// in a separate ckptsim process, where heap addresses, allocator state and ASLR differ, which is
// where address-ordered containers or uninitialised reads would show up as a different trace.
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::properties {
namespace {

// A scratch directory for one replay, removed whatever happens.
class ScratchDir {
  public:
    ScratchDir() {
        static int counter = 0;
        path_ = std::filesystem::temp_directory_path() /
                ("ckptsim-p8-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// The trace hash `ckptsim replay --json` reports for `scenario`.
std::string trace_hash_in_another_process(const sim::Scenario& scenario) {
    const ScratchDir scratch;
    const auto file_path = scratch.path() / "scenario.json";
    sim::ScenarioFile file;
    file.scenario = scenario;
    file.save(file_path.string());
    // A violation makes replay exit 1 and save a copy: --out keeps that copy in the scratch dir.
    const std::string command = std::string(CKPTSIM_BINARY) + " replay '" + file_path.string() +
                                "' --json --out '" + (scratch.path() / "out").string() + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
    RC_ASSERT(pipe != nullptr);
    std::string output;
    std::array<char, 4096> buffer{};
    while (const auto read = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) {
        output.append(buffer.data(), read);
    }
    const auto report = nlohmann::json::parse(output, nullptr, false);
    if (report.is_discarded() || !report.contains("trace_hash")) {
        RC_FAIL("ckptsim replay printed no JSON report: " + output);
    }
    return report.at("trace_hash").get<std::string>();
}

RC_GTEST_PROP(P08Determinism, SameScenarioGivesTheSameTraceHash, ()) {
    check_property(sim::Property::P8, *gen_scenario({.stream = 8}));
}

RC_GTEST_PROP(P08Determinism, AnotherProcessGivesTheSameTraceHash, ()) {
    const auto scenario = *gen_scenario({.stream = 13});  // not the stream the test above checks
    const auto result = check_property(sim::Property::P8, scenario);
    const auto other = trace_hash_in_another_process(scenario);
    if (other != result.trace_hash) {
        const auto path = save_counterexample(sim::Property::P8, result, false);
        fail_property(sim::Property::P8,
                      "this process gave trace hash " + result.trace_hash + ", ckptsim replay gave " + other,
                      path);
    }
}

}  // namespace
}  // namespace ckpt::properties
