// Unit tests of document migrations: the trainer_state.json chain (pre-stateful documents, no
// top-level key Transformers would reject, newer formats refused) and MigrationChain's own rules.
// Depends on policy/formats and policy/callbacks.
#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/callbacks/early_stopping_callback.hpp"
#include "policy/callbacks/stateful_callbacks.hpp"
#include "policy/callbacks/trainer_control.hpp"
#include "policy/formats/document_migrations.hpp"
#include "policy/tests/support/json_keys.hpp"

namespace ckpt {
namespace {

using ckpt::testing::keys_of;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What Transformers before v4.41 wrote: no stateful_callbacks at all.
json pre_stateful_trainer_state() {
    return json::parse(R"({
        "best_metric": 0.81,
        "best_model_checkpoint": "out/checkpoint-20",
        "epoch": 1.5,
        "eval_steps": 10,
        "global_step": 30,
        "is_hyper_param_search": false,
        "is_local_process_zero": true,
        "is_world_process_zero": true,
        "log_history": [{"eval_accuracy": 0.81, "step": 20}],
        "logging_steps": 10,
        "max_steps": 100,
        "num_train_epochs": 5,
        "save_steps": 10,
        "total_flos": 0,
        "train_batch_size": 8,
        "trial_name": null,
        "trial_params": null
    })");
}

TEST(TrainerStateMigration, UpgradesAPreStatefulCallbacksDocument) {
    const json old = pre_stateful_trainer_state();
    const json upgraded = migrate_trainer_state(old);

    json expected = old;
    expected["stateful_callbacks"] = {{"TrainerControl", TrainerControl{}.state()}};
    expected["stateful_callbacks"]["TrainerControl"]["ckptsim_format_version"] = 1;
    expected["stateful_callbacks"]["TrainerControl"]["ckptsim_migrated_from_version"] = 0;
    EXPECT_EQ(upgraded, expected);
    EXPECT_EQ(trainer_state_migrations().version_of(old), 0);
    EXPECT_EQ(trainer_state_migrations().version_of(upgraded), 1);
}

TEST(TrainerStateMigration, AddsNoTopLevelKeyThatTransformersWouldReject) {
    // TrainerState.load_from_json is TrainerState(**json): an unknown top-level key is a TypeError.
    std::vector<std::string> expected = keys_of(pre_stateful_trainer_state());
    expected.push_back("stateful_callbacks");
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(keys_of(migrate_trainer_state(pre_stateful_trainer_state())), expected);
}

TEST(TrainerStateMigration, LeavesADocumentTransformersWroteUntouched) {
    json current = pre_stateful_trainer_state();
    current["stateful_callbacks"] = {{"TrainerControl", TrainerControl{}.state()},
                                     {"EarlyStoppingCallback", EarlyStoppingCallback(3).state()}};
    EXPECT_EQ(trainer_state_migrations().version_of(current), 1);
    EXPECT_EQ(migrate_trainer_state(current), current);
}

TEST(TrainerStateMigration, TreatsANullStatefulCallbacksAsPreStateful) {
    json old = pre_stateful_trainer_state();
    old["stateful_callbacks"] = nullptr;
    EXPECT_TRUE(migrate_trainer_state(old)["stateful_callbacks"].contains("TrainerControl"));
}

TEST(TrainerStateMigration, RefusesADocumentFromANewerFormat) {
    json newer = pre_stateful_trainer_state();
    newer["stateful_callbacks"] = {{"TrainerControl", TrainerControl{}.state()}};
    newer["stateful_callbacks"]["TrainerControl"]["ckptsim_format_version"] = 2;
    try {
        migrate_trainer_state(newer);
        FAIL() << "a newer document was accepted";
    } catch (const ValueError& error) {
        EXPECT_STREQ(
            error.what(),
            "trainer_state.json has format version 2, newer than the newest this build reads (1); it was "
            "written by a newer ckptsim, so upgrade ckptsim to read it.");
    }
}

TEST(TrainerStateMigration, RejectsAMalformedMarkerOrDocument) {
    json bad = pre_stateful_trainer_state();
    bad["stateful_callbacks"] = {{"TrainerControl", {{"ckptsim_format_version", "1"}}}};
    EXPECT_THROW(migrate_trainer_state(bad), ValueError);
    bad["stateful_callbacks"]["TrainerControl"]["ckptsim_format_version"] = -1;
    EXPECT_THROW(migrate_trainer_state(bad), ValueError);
    EXPECT_THROW(migrate_trainer_state(json::array()), ValueError);
}

TEST(TrainerStateMigration, StampMarksTheControlEntryOfAFreshlyWrittenDocument) {
    TrainerControl control;
    EarlyStoppingCallback early_stopping(2);
    json state = pre_stateful_trainer_state();
    state["stateful_callbacks"] = export_stateful_callbacks({&early_stopping, &control});
    stamp_trainer_state_version(state);
    EXPECT_EQ(state["stateful_callbacks"]["TrainerControl"]["ckptsim_format_version"], 1);
    EXPECT_EQ(migrate_trainer_state(state), state);

    json without_control = pre_stateful_trainer_state();
    without_control["stateful_callbacks"] = export_stateful_callbacks({&early_stopping});
    EXPECT_THROW(stamp_trainer_state_version(without_control), ValueError);
}

TEST(TrainerStateMigration, AMigratedDocumentRestoresWithWarningsForTheLostCallbacks) {
    // Issue #28544's situation: an early-stopping counter that was never saved restarts at 0,
    // now with a warning instead of in silence.
    const json upgraded = migrate_trainer_state(pre_stateful_trainer_state());
    const auto plan =
        plan_callback_restore(upgraded["stateful_callbacks"],
                              {{"TrainerControl", std::nullopt}, {"EarlyStoppingCallback", std::nullopt}});
    ASSERT_TRUE(plan.states[0].has_value());
    EXPECT_EQ(TrainerControl::from_state(*plan.states[0]).state(), TrainerControl{}.state());
    EXPECT_FALSE(plan.states[1].has_value());
    EXPECT_THAT(
        plan.warnings,
        ElementsAre("No saved state for callback EarlyStoppingCallback #1; it keeps its configured state."));
}

// ---- the generic chain ----

MigrationChain recording_chain(int current) {
    return MigrationChain("sidecar.json", current, MigrationChain::top_level("version"));
}

MigrationChain::Step append_step(const std::string& name) {
    return [name](json document) {
        document["applied"].push_back(name);
        return document;
    };
}

TEST(MigrationChain, AppliesEveryStepAtOrAboveTheDocumentVersionInOrder) {
    MigrationChain chain = recording_chain(5);
    chain.add(3, 4, append_step("3->4")).add(0, 1, append_step("0->1")).add(1, 3, append_step("1->3"));
    EXPECT_EQ(chain.migrate(json::object()),
              json({{"applied", {"0->1", "1->3", "3->4"}}, {"version", 5}, {"migrated_from_version", 0}}));
    EXPECT_EQ(chain.migrate({{"version", 3}}),
              json({{"applied", {"3->4"}}, {"version", 5}, {"migrated_from_version", 3}}));
    EXPECT_EQ(chain.migrate({{"version", 4}}), json({{"version", 5}, {"migrated_from_version", 4}}));
}

TEST(MigrationChain, ACurrentDocumentIsReturnedUnchanged) {
    MigrationChain chain = recording_chain(2);
    chain.add(0, 2, append_step("0->2"));
    const json current = {{"version", 2}, {"payload", 1}};
    EXPECT_EQ(chain.migrate(current), current);
}

TEST(MigrationChain, KeepsTheFirstOriginAcrossRepeatedMigrations) {
    MigrationChain first = recording_chain(1);
    first.add(0, 1, append_step("0->1"));
    const json once = first.migrate(json::object());

    MigrationChain later = recording_chain(2);
    later.add(0, 1, append_step("0->1")).add(1, 2, append_step("1->2"));
    const json twice = later.migrate(once);
    EXPECT_EQ(twice["migrated_from_version"], 0);
    EXPECT_EQ(twice["version"], 2);
    EXPECT_EQ(twice["applied"], json({"0->1", "1->2"}));
}

TEST(MigrationChain, RefusesNewerOrMalformedDocuments) {
    const MigrationChain chain = recording_chain(1);
    EXPECT_THROW(chain.migrate({{"version", 2}}), ValueError);
    EXPECT_THROW(chain.migrate({{"version", "1"}}), ValueError);
    EXPECT_THROW(chain.migrate({{"version", 1.5}}), ValueError);
    EXPECT_THROW(chain.migrate("text"), ValueError);
    try {
        chain.migrate({{"version", 9}});
    } catch (const ValueError& error) {
        EXPECT_THAT(error.what(), HasSubstr("sidecar.json has format version 9, newer than"));
    }
}

TEST(MigrationChain, RejectsStepsThatDoNotFormAChain) {
    MigrationChain chain = recording_chain(3);
    chain.add(1, 2, append_step("1->2"));
    EXPECT_THROW(chain.add(2, 2, append_step("x")), ValueError);
    EXPECT_THROW(chain.add(3, 2, append_step("x")), ValueError);
    EXPECT_THROW(chain.add(2, 4, append_step("x")), ValueError);
    EXPECT_THROW(chain.add(-1, 1, append_step("x")), ValueError);
    EXPECT_THROW(chain.add(0, 3, append_step("x")), ValueError);
    EXPECT_THROW(chain.add(1, 2, append_step("x")), ValueError);
    EXPECT_THROW(chain.add(2, 3, {}), ValueError);
    EXPECT_NO_THROW(chain.add(2, 3, append_step("2->3")));
}

TEST(MigrationChain, AStepMustProduceAnObject) {
    MigrationChain chain = recording_chain(1);
    chain.add(0, 1, [](json) { return json::array(); });
    EXPECT_THROW(chain.migrate(json::object()), ValueError);
}

TEST(MigrationChain, StampWritesTheCurrentVersion) {
    const MigrationChain chain = recording_chain(4);
    json document = {{"payload", true}};
    chain.stamp(document);
    EXPECT_EQ(document, json({{"payload", true}, {"version", 4}}));
    EXPECT_EQ(chain.version_of(document), 4);
}

}  // namespace
}  // namespace ckpt
