// read_durable_sidecar, which builds only what P2 and P9 read, against the DOM reading it
// replaced (json::parse of the whole sidecar, a NUL refused as json.loads refuses it, then
// read_state of checkpoint_eval_state): the same has_policy_state, state and last_evaluated_step
// on the fuzz corpora and on damaged copies.
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/events/job_constants.hpp"
#include "sim/tests/checks/json_damage.hpp"
#include "sim/tests/checks/json_scanner_oracle.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// Empty when the reading agrees with the whole-tree reading of the same bytes.
std::string disagreement(const std::string& bytes) {
    SimFileSystem fs;
    fs.mkdir("/run");
    fs.mkdir(kOutputDir);
    fs.write_file(join_path(kOutputDir, kSidecarName), bytes);
    fs.sync_all();
    const auto reading = read_durable_sidecar(fs);
    const auto dom = testing::python_dom(bytes);
    const bool has_state = dom.is_object() && dom.contains("checkpoint_eval_state");
    if (reading.bytes != bytes || reading.has_policy_state != has_state) {
        return "has_policy_state differs";
    }
    const auto state = has_state ? read_state(dom["checkpoint_eval_state"]) : std::nullopt;
    if (reading.state != state) {
        return "state " + (reading.state ? describe(*reading.state) : "none") + " against " +
               (state ? describe(*state) : "none");
    }
    const auto last =
        reading.payload.is_object() ? reading.payload.find("last_evaluated_step") : json::const_iterator{};
    const bool has_last = dom.is_object() && dom.contains("last_evaluated_step");
    if (reading.payload.is_object() != dom.is_object() ||
        (dom.is_object() && (has_last != (last != reading.payload.end()) ||
                             (has_last && last->dump() != dom["last_evaluated_step"].dump())))) {
        return "last_evaluated_step differs";
    }
    return {};
}

TEST(DurableSidecarReading, AgreesWithTheWholeTreeReading) {
    const auto texts = testing::corpus_texts();
    for (const auto& text : texts) {
        EXPECT_EQ(disagreement(text), "") << text.substr(0, 200);
    }
    const std::string nested =
        R"({"checkpoint_eval_state": {"state": {"best_step": 3, "evaluation_count": 2,)"
        R"( "best_step": 4}, "evaluation_count": 9, "state": 5}, "last_evaluated_step": 1})";
    for (const std::string& text :
         {nested, std::string(R"({"checkpoint_eval_state": [1], "last_evaluated_step": 1.5})"),
          std::string(
              R"({"checkpoint_eval_state": {"best_score": 1, "stop_requested": true, "best_step": 1e2}})")}) {
        EXPECT_EQ(disagreement(text), "") << text;
    }
    Rng rng(0x51decab);
    for (std::size_t t = 0; t < texts.size(); ++t) {
        for (int copy = 0; copy < 200; ++copy) {
            std::string text = texts[t];
            testing::edit(rng, text);
            ASSERT_EQ(disagreement(text), "")
                << "text " << t << " copy " << copy << ": " << text.substr(0, 300);
        }
    }
}

}  // namespace
}  // namespace ckpt::sim
