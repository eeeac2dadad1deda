// Unit tests of stateful-callback export and restore: Transformers' shape, state_key identity for
// duplicates, the restore plan's warnings, and the three planted refresh/export mutants, each
// shown to be caught. Depends on policy/callbacks and the mutant catalogue.
#include "policy/callbacks/stateful_callbacks.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/callbacks/early_stopping_callback.hpp"
#include "policy/callbacks/trainer_control.hpp"

namespace ckpt {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A second exportable class, so tests can mix classes and give one class several instances
// (the seed-000 review's "different metric loggers").
class MetricLoggerCallback final : public ExportableState {
  public:
    explicit MetricLoggerCallback(std::string metric, std::optional<std::string> key = std::nullopt)
        : metric_(std::move(metric)), key_(std::move(key)) {}

    std::string class_name() const override { return "MetricLoggerCallback"; }
    std::optional<std::string> state_key() const override { return key_; }
    json state() const override {
        return {{"args", {{"metric", metric_}}}, {"attributes", {{"logged", logged}}}};
    }

    static std::unique_ptr<ExportableState> from_state(const json& state) {
        auto key = state.contains("state_key") ? std::optional(state.at("state_key").get<std::string>())
                                               : std::nullopt;
        auto callback = std::make_unique<MetricLoggerCallback>(state.at("args").at("metric"), std::move(key));
        callback->logged = state.at("attributes").at("logged");
        return callback;
    }

    const std::string& metric() const { return metric_; }
    int logged = 0;

  private:
    std::string metric_;
    std::optional<std::string> key_;
};

CallbackFactoryRegistry test_registry() {
    CallbackFactoryRegistry registry = CallbackFactoryRegistry::with_builtin_callbacks();
    registry.add("MetricLoggerCallback", &MetricLoggerCallback::from_state);
    return registry;
}

std::vector<ConfiguredCallback> configured(std::initializer_list<ConfiguredCallback> callbacks) {
    return callbacks;
}

json logger_state(const std::string& metric, int logged) {
    return {{"args", {{"metric", metric}}}, {"attributes", {{"logged", logged}}}};
}

json keyed(json state, const std::string& key) {
    state["state_key"] = key;
    return state;
}

// ---- TrainerControl ----

TEST(TrainerControlState, FlagsLiveInArgsAsInTransformers) {
    TrainerControl control;
    control.should_save = true;
    control.should_training_stop = true;
    EXPECT_EQ(control.state().dump(),
              R"({"args":{"should_epoch_stop":false,"should_evaluate":false,"should_log":false,)"
              R"("should_save":true,"should_training_stop":true},"attributes":{}})");
}

TEST(TrainerControlState, RoundTripsAndDefaultsMissingFlagsToFalse) {
    TrainerControl control;
    control.should_evaluate = true;
    control.should_log = true;
    const TrainerControl restored = TrainerControl::from_state(json::parse(control.state().dump()));
    EXPECT_EQ(restored.state(), control.state());

    const TrainerControl partial = TrainerControl::from_state({{"args", {{"should_epoch_stop", true}}}});
    EXPECT_TRUE(partial.should_epoch_stop);
    EXPECT_FALSE(partial.should_training_stop);
    EXPECT_FALSE(TrainerControl::from_state(json::object()).should_save);
}

TEST(TrainerControlState, RejectsMalformedState) {
    EXPECT_THROW(TrainerControl::from_state(json::array()), ValueError);
    EXPECT_THROW(TrainerControl::from_state({{"args", json::array()}}), ValueError);
    EXPECT_THROW(TrainerControl::from_state({{"args", {{"should_save", "yes"}}}}), ValueError);
}

// ---- export ----

TEST(ExportStatefulCallbacks, OneCallbackPerClassIsAPlainObject) {
    TrainerControl control;
    EarlyStoppingCallback early_stopping(3);
    const json exported = export_stateful_callbacks({&early_stopping, &control});
    EXPECT_EQ(exported, json::parse(R"({
        "EarlyStoppingCallback": {
            "args": {"early_stopping_patience": 3, "early_stopping_threshold": 0.0},
            "attributes": {"early_stopping_patience_counter": 0, "best_metric": null}
        },
        "TrainerControl": {
            "args": {"should_training_stop": false, "should_epoch_stop": false, "should_save": false,
                     "should_evaluate": false, "should_log": false},
            "attributes": {}
        }
    })"));
}

TEST(ExportStatefulCallbacks, SeveralCallbacksOfOneClassBecomeAListInOrder) {
    MetricLoggerCallback loss("loss");
    MetricLoggerCallback accuracy("accuracy");
    accuracy.logged = 4;
    const json exported = export_stateful_callbacks({&loss, &accuracy});
    EXPECT_EQ(exported,
              json({{"MetricLoggerCallback", {logger_state("loss", 0), logger_state("accuracy", 4)}}}));
}

TEST(ExportStatefulCallbacks, AStateKeyIsStoredBesideArgsAndAttributes) {
    MetricLoggerCallback loss("loss", "loss-logger");
    MetricLoggerCallback plain("accuracy");
    EXPECT_EQ(export_stateful_callbacks({&loss, &plain}),
              json({{"MetricLoggerCallback",
                     {keyed(logger_state("loss", 0), "loss-logger"), logger_state("accuracy", 0)}}}));
}

TEST(ExportStatefulCallbacks, EveryCallbackIsRefreshedNotOnlyTheControl) {
    // Seed 000's review: the first version refreshed only TrainerControl before writing.
    TrainerControl control;
    EarlyStoppingCallback early_stopping(3);
    json stored = export_stateful_callbacks({&early_stopping, &control});
    early_stopping.on_evaluate(0.5, true, control);
    early_stopping.on_evaluate(0.4, true, control);
    stored = refresh_stateful_callbacks(stored, {&early_stopping, &control});
    EXPECT_EQ(stored["EarlyStoppingCallback"]["attributes"]["early_stopping_patience_counter"], 1);
}

TEST(ExportStatefulCallbacks, RepeatedSavesReplaceTheListInsteadOfGrowingIt) {
    // Transformers PR #33875: appending at every save grew the list and restored stale entries.
    MetricLoggerCallback loss("loss");
    MetricLoggerCallback accuracy("accuracy");
    const std::vector<const ExportableState*> callbacks{&loss, &accuracy};
    json stored = export_stateful_callbacks(callbacks);
    for (int save = 1; save <= 3; ++save) {
        loss.logged = save;
        accuracy.logged = 10 * save;
        stored = refresh_stateful_callbacks(stored, callbacks);
        ASSERT_EQ(stored["MetricLoggerCallback"].size(), 2U);
    }
    EXPECT_EQ(stored["MetricLoggerCallback"], json({logger_state("loss", 3), logger_state("accuracy", 30)}));
}

TEST(ExportStatefulCallbacks, RefusesDuplicateStateKeysWithinAClass) {
    MetricLoggerCallback first("loss", "logger");
    MetricLoggerCallback second("accuracy", "logger");
    try {
        export_stateful_callbacks({&first, &second});
        FAIL() << "duplicate state keys were exported";
    } catch (const ValueError& error) {
        EXPECT_THAT(error.what(), HasSubstr("'logger'"));
        EXPECT_THAT(error.what(), HasSubstr("give each one a distinct state_key"));
    }
}

TEST(ExportStatefulCallbacks, TheSameKeyInTwoClassesIsFine) {
    MetricLoggerCallback logger("loss", "shared");
    EarlyStoppingCallback early_stopping(2, 0.0, "shared");
    EXPECT_NO_THROW(export_stateful_callbacks({&logger, &early_stopping}));
}

TEST(ExportStatefulCallbacks, RejectsNullCallbacks) {
    EXPECT_THROW(export_stateful_callbacks({nullptr}), ValueError);
}

// ---- the mutation catalogue's planted bugs must be observable here ----

TEST(ExportStatefulCallbacksMutants, DuplicateListGrowsAppendsAtEverySave) {
    const mutants::MutantScope scope(mutants::Mutant::duplicate_list_grows);
    MetricLoggerCallback loss("loss");
    MetricLoggerCallback accuracy("accuracy");
    const std::vector<const ExportableState*> callbacks{&loss, &accuracy};
    json stored = export_stateful_callbacks(callbacks);
    stored = refresh_stateful_callbacks(stored, callbacks);
    EXPECT_EQ(stored["MetricLoggerCallback"].size(), 4U);
    stored = refresh_stateful_callbacks(stored, callbacks);
    EXPECT_EQ(stored["MetricLoggerCallback"].size(), 6U);
}

TEST(ExportStatefulCallbacksMutants, StaleCallbackStateRefreshesOnlyTheControl) {
    const mutants::MutantScope scope(mutants::Mutant::stale_callback_state);
    TrainerControl control;
    EarlyStoppingCallback early_stopping(3);
    json stored = export_stateful_callbacks({&early_stopping, &control});
    early_stopping.on_evaluate(0.5, true, control);
    early_stopping.on_evaluate(0.4, true, control);
    control.should_save = true;
    stored = refresh_stateful_callbacks(stored, {&early_stopping, &control});
    EXPECT_EQ(stored["EarlyStoppingCallback"]["attributes"]["early_stopping_patience_counter"], 0);
    EXPECT_EQ(stored["TrainerControl"]["args"]["should_save"], true);
}

TEST(ExportStatefulCallbacksMutants, SameClassOverwriteKeepsOnlyTheLast) {
    const mutants::MutantScope scope(mutants::Mutant::same_class_overwrite);
    MetricLoggerCallback loss("loss");
    MetricLoggerCallback accuracy("accuracy");
    EXPECT_EQ(export_stateful_callbacks({&loss, &accuracy}),
              json({{"MetricLoggerCallback", logger_state("accuracy", 0)}}));
}

// ---- restore planning ----

TEST(PlanCallbackRestore, MatchesDuplicatesByPosition) {
    const json saved = {{"MetricLoggerCallback", {logger_state("loss", 1), logger_state("accuracy", 2)}},
                        {"TrainerControl", TrainerControl{}.state()}};
    const auto plan = plan_callback_restore(
        saved,
        configured({{"TrainerControl", {}}, {"MetricLoggerCallback", {}}, {"MetricLoggerCallback", {}}}));
    ASSERT_EQ(plan.states.size(), 3U);
    EXPECT_EQ(plan.states[0], TrainerControl{}.state());
    EXPECT_EQ(plan.states[1], logger_state("loss", 1));
    EXPECT_EQ(plan.states[2], logger_state("accuracy", 2));
    EXPECT_THAT(plan.warnings, IsEmpty());
}

TEST(PlanCallbackRestore, MatchesDuplicatesByStateKeyRegardlessOfOrder) {
    const json saved = {
        {"MetricLoggerCallback",
         {keyed(logger_state("loss", 1), "on-loss"), keyed(logger_state("accuracy", 2), "on-acc")}}};
    const auto plan = plan_callback_restore(
        saved, configured({{"MetricLoggerCallback", "on-acc"}, {"MetricLoggerCallback", "on-loss"}}));
    EXPECT_EQ(plan.states[0], keyed(logger_state("accuracy", 2), "on-acc"));
    EXPECT_EQ(plan.states[1], keyed(logger_state("loss", 1), "on-loss"));
    EXPECT_THAT(plan.warnings, IsEmpty());
}

TEST(PlanCallbackRestore, KeyedCallbacksFallBackToPositionForStatesSavedWithoutKeys) {
    // A file Transformers wrote carries no state_key; it restores as Transformers would.
    const json saved = {{"MetricLoggerCallback", {logger_state("loss", 1), logger_state("accuracy", 2)}}};
    const auto plan = plan_callback_restore(
        saved, configured({{"MetricLoggerCallback", "first"}, {"MetricLoggerCallback", "second"}}));
    EXPECT_EQ(plan.states[0], keyed(logger_state("loss", 1), "first"));
    EXPECT_EQ(plan.states[1], keyed(logger_state("accuracy", 2), "second"));
    EXPECT_THAT(plan.warnings, IsEmpty());
}

TEST(PlanCallbackRestore, AStateSavedUnderAnotherKeyIsNeverHandedOver) {
    const json saved = {{"EarlyStoppingCallback", keyed(EarlyStoppingCallback(3).state(), "patience-3")}};
    const auto plan = plan_callback_restore(saved, configured({{"EarlyStoppingCallback", "patience-5"}}));
    EXPECT_FALSE(plan.states[0].has_value());
    EXPECT_THAT(
        plan.warnings,
        ElementsAre("No saved state for callback EarlyStoppingCallback (state_key 'patience-5'); it keeps "
                    "its configured state.",
                    "Ignoring saved state EarlyStoppingCallback (state_key 'patience-3'): no configured "
                    "callback matches it."));
}

TEST(PlanCallbackRestore, WarnsWithTransformersTextForUnconfiguredClasses) {
    const json saved = {{"ZetaCallback", {{"args", json::object()}}},
                        {"AlphaCallback", {{"args", json::object()}}},
                        {"TrainerControl", TrainerControl{}.state()}};
    const auto plan = plan_callback_restore(saved, configured({{"TrainerControl", {}}}));
    EXPECT_THAT(plan.warnings,
                ElementsAre("Checkpoint included callbacks not included in current configuration. "
                            "Ignoring. (AlphaCallback, ZetaCallback)"));
    EXPECT_EQ(callbacks_not_configured_warning({"EarlyStoppingCallback"}),
              "Checkpoint included callbacks not included in current configuration. Ignoring. "
              "(EarlyStoppingCallback)");
}

TEST(PlanCallbackRestore, WarnsWhenAConfiguredCallbackHasNoSavedState) {
    const json saved = {{"TrainerControl", TrainerControl{}.state()}};
    const auto plan =
        plan_callback_restore(saved, configured({{"TrainerControl", {}}, {"EarlyStoppingCallback", {}}}));
    EXPECT_FALSE(plan.states[1].has_value());
    EXPECT_THAT(
        plan.warnings,
        ElementsAre("No saved state for callback EarlyStoppingCallback #1; it keeps its configured state."));
}

TEST(PlanCallbackRestore, WarnsWhenCountsDifferMoreSavedThanConfigured) {
    const json saved = {
        {"MetricLoggerCallback", {logger_state("a", 1), logger_state("b", 2), logger_state("c", 3)}}};
    const auto plan = plan_callback_restore(
        saved, configured({{"MetricLoggerCallback", {}}, {"MetricLoggerCallback", {}}}));
    EXPECT_EQ(plan.states[0], logger_state("a", 1));
    EXPECT_EQ(plan.states[1], logger_state("b", 2));
    EXPECT_THAT(
        plan.warnings,
        ElementsAre("Checkpoint holds 3 saved state(s) for MetricLoggerCallback but the current "
                    "configuration has 2 such callback(s).",
                    "Ignoring saved state MetricLoggerCallback #3: no configured callback matches it."));
}

TEST(PlanCallbackRestore, WarnsWhenCountsDifferFewerSavedThanConfigured) {
    const json saved = {{"MetricLoggerCallback", logger_state("a", 1)}};
    const auto plan = plan_callback_restore(
        saved, configured({{"MetricLoggerCallback", {}}, {"MetricLoggerCallback", {}}}));
    EXPECT_EQ(plan.states[0], logger_state("a", 1));
    EXPECT_FALSE(plan.states[1].has_value());
    EXPECT_THAT(
        plan.warnings,
        ElementsAre("Checkpoint holds 1 saved state(s) for MetricLoggerCallback but the current "
                    "configuration has 2 such callback(s).",
                    "No saved state for callback MetricLoggerCallback #2; it keeps its configured state."));
}

TEST(PlanCallbackRestore, MissingStatefulCallbacksRestoresNothing) {
    for (const json& saved : {json(nullptr), json::object()}) {
        const auto plan = plan_callback_restore(saved, configured({{"TrainerControl", {}}}));
        EXPECT_FALSE(plan.states[0].has_value());
        EXPECT_EQ(plan.warnings.size(), 1U);
    }
}

TEST(PlanCallbackRestore, RefusesDuplicateConfiguredStateKeys) {
    EXPECT_THROW(plan_callback_restore(json::object(), configured({{"EarlyStoppingCallback", "k"},
                                                                   {"EarlyStoppingCallback", "k"}})),
                 ValueError);
    EXPECT_NO_THROW(
        check_unique_state_keys(configured({{"EarlyStoppingCallback", {}}, {"EarlyStoppingCallback", {}}})));
}

TEST(PlanCallbackRestore, RejectsMalformedStatefulCallbacks) {
    const auto one = configured({{"TrainerControl", {}}});
    EXPECT_THROW(plan_callback_restore(json::array(), one), ValueError);
    EXPECT_THROW(plan_callback_restore({{"TrainerControl", 3}}, one), ValueError);
    EXPECT_THROW(plan_callback_restore({{"TrainerControl", {json::object(), "x"}}}, one), ValueError);
    EXPECT_THROW(plan_callback_restore({{"TrainerControl", {{"state_key", 7}}}}, one), ValueError);
}

// ---- rebuilding callbacks ----

TEST(CallbackFactoryRegistry, RejectsUnknownClassesAndDoubleRegistration) {
    CallbackFactoryRegistry registry = test_registry();
    EXPECT_TRUE(registry.contains("EarlyStoppingCallback"));
    EXPECT_TRUE(registry.contains("TrainerControl"));
    EXPECT_FALSE(registry.contains("Nope"));
    EXPECT_THROW(registry.create("Nope", json::object()), ValueError);
    EXPECT_THROW(registry.add("MetricLoggerCallback", &MetricLoggerCallback::from_state), ValueError);
    EXPECT_THROW(registry.add("Empty", {}), ValueError);
    registry.add("Liar", [](const json&) { return std::make_unique<TrainerControl>(); });
    EXPECT_THROW(registry.create("Liar", json::object()), ValueError);
}

TEST(RestoreStatefulCallbacks, RoundTripsAMixOfCallbacksThroughTrainerStateText) {
    TrainerControl control;
    EarlyStoppingCallback patient(5, 0.0, "patient");
    EarlyStoppingCallback eager(2, 0.1, "eager");
    MetricLoggerCallback loss("loss");
    MetricLoggerCallback accuracy("accuracy");
    patient.on_evaluate(1.0, true, control);
    patient.on_evaluate(0.9, true, control);
    eager.on_evaluate(1.0, true, control);
    loss.logged = 7;
    accuracy.logged = 9;
    control.should_save = true;
    const std::vector<const ExportableState*> before{&control, &patient, &eager, &loss, &accuracy};
    const std::string written = export_stateful_callbacks(before).dump(2);

    // A resumed run configures the same kinds of callbacks afresh, in another order.
    std::vector<std::unique_ptr<ExportableState>> fresh;
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(2, 0.1, "eager"));
    fresh.push_back(std::make_unique<MetricLoggerCallback>("loss"));
    fresh.push_back(std::make_unique<TrainerControl>());
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(5, 0.0, "patient"));
    fresh.push_back(std::make_unique<MetricLoggerCallback>("accuracy"));
    RestoredCallbacks restored =
        restore_stateful_callbacks(json::parse(written), std::move(fresh), test_registry());

    EXPECT_THAT(restored.warnings, IsEmpty());
    ASSERT_EQ(restored.callbacks.size(), 5U);
    EXPECT_EQ(restored.callbacks[0]->state(), eager.state());
    EXPECT_EQ(restored.callbacks[0]->state_key(), "eager");
    EXPECT_EQ(restored.callbacks[1]->state(), loss.state());
    EXPECT_EQ(restored.callbacks[2]->state(), control.state());
    EXPECT_EQ(restored.callbacks[3]->state(), patient.state());
    EXPECT_EQ(restored.callbacks[4]->state(), accuracy.state());
}

// One EarlyStoppingCallback saved with patience 4 and three evaluations without improvement.
json saved_with_patience_four() {
    return json::parse(R"({
        "EarlyStoppingCallback": {
            "args": {"early_stopping_patience": 4, "early_stopping_threshold": 0.0},
            "attributes": {"early_stopping_patience_counter": 3}
        }
    })");
}

TEST(RestoreStatefulCallbacks, AnArgumentChangedSinceTheCheckpointIsRefusedNotSilentlyReplaced) {
    // Transformers would rebuild the callback with patience 4 and drop the user's 10 silently.
    const json saved = saved_with_patience_four();
    std::vector<std::unique_ptr<ExportableState>> fresh;
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(10));
    std::string error;
    try {
        restore_stateful_callbacks(saved, std::move(fresh), test_registry());
    } catch (const ValueError& refused) {
        error = refused.what();
    }
    EXPECT_THAT(error, HasSubstr("EarlyStoppingCallback is configured with early_stopping_patience=10"));
    EXPECT_THAT(error, HasSubstr("saved it with early_stopping_patience=4"));
    EXPECT_THAT(error, HasSubstr("restore_callback_states_from_checkpoint=False"));
}

TEST(RestoreStatefulCallbacks, ASavedArgumentTheClassDoesNotTakeIsPythonsTypeError) {
    // type(cb)(**args) with a key a power loss garbled (finding 26): Python's TypeError, naming it.
    json saved = saved_with_patience_four();
    auto& args = saved["EarlyStoppingCallback"]["args"];
    args["eaarly_stopping_threshold"] = args["early_stopping_threshold"];
    args.erase("early_stopping_threshold");
    std::vector<std::unique_ptr<ExportableState>> fresh;
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(4));
    std::string error;
    try {
        restore_stateful_callbacks(saved, std::move(fresh), test_registry());
    } catch (const TypeError& refused) {
        error = refused.what();
    }
    EXPECT_EQ(
        error,
        "EarlyStoppingCallback.__init__() got an unexpected keyword argument 'eaarly_stopping_threshold'");
}

TEST(RestoreStatefulCallbacks, ASavedArgumentTheClassDoesNotTakeFailsEvenWhereChangesPassSilently) {
    // Transformers' real restore ignores changed values but not a keyword __init__ lacks.
    const mutants::MutantScope scope(mutants::Mutant::changed_args_silently_restored);
    json saved = saved_with_patience_four();
    saved["EarlyStoppingCallback"]["args"]["patience"] = 4;
    std::vector<std::unique_ptr<ExportableState>> fresh;
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(4));
    EXPECT_THROW(restore_stateful_callbacks(saved, std::move(fresh), test_registry()), TypeError);
}

TEST(RestoreStatefulCallbacks, UnchangedArgumentsRestoreTheSavedAttributes) {
    const json saved = saved_with_patience_four();
    std::vector<std::unique_ptr<ExportableState>> fresh;
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(4));
    const RestoredCallbacks restored = restore_stateful_callbacks(saved, std::move(fresh), test_registry());
    const auto& early_stopping = dynamic_cast<const EarlyStoppingCallback&>(*restored.callbacks[0]);
    EXPECT_EQ(early_stopping.early_stopping_patience(), 4);
    EXPECT_EQ(early_stopping.early_stopping_patience_counter(), 3);
}

TEST(RestoreStatefulCallbacks, KeepsCallbacksWithoutSavedStateAsConfigured) {
    std::vector<std::unique_ptr<ExportableState>> fresh;
    auto logger = std::make_unique<MetricLoggerCallback>("loss");
    logger->logged = 2;
    const ExportableState* original = logger.get();
    fresh.push_back(std::move(logger));
    const RestoredCallbacks restored =
        restore_stateful_callbacks(json::object(), std::move(fresh), test_registry());
    EXPECT_EQ(restored.callbacks[0].get(), original);
    EXPECT_EQ(restored.warnings.size(), 1U);
}

TEST(RestoreStatefulCallbacks, AFactoryFailureReplacesNothing) {
    const json saved = {{"EarlyStoppingCallback",
                         {{"args", {{"early_stopping_patience", 3}}},
                          {"attributes", {{"early_stopping_patience_counter", -1}}}}}};
    std::vector<std::unique_ptr<ExportableState>> fresh;
    fresh.push_back(std::make_unique<EarlyStoppingCallback>(3));
    EXPECT_THROW(restore_stateful_callbacks(saved, std::move(fresh), test_registry()), ValueError);
}

}  // namespace
}  // namespace ckpt
