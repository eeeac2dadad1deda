// LogHistory against the whole-tree dump it stands in for: entries logged one by one and the
// document split around them give exactly trainer_state_text's bytes for the same state with the
// list in it, as runs that share one buffer from save to save; a restored list writes the bytes
// it was read from.
#include "sim/trainer/log_history.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <rapidcheck.h>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

#include "sim/trainer/trainer_state_file.hpp"

namespace ckpt::sim::transformers {
namespace {

using nlohmann::json;

json state_at(std::int64_t step) {
    return {{"best_metric", nullptr},
            {"epoch", static_cast<double>(step) / 7.0},
            {"global_step", step},
            {"stateful_callbacks",
             {{"TrainerControl", {{"args", {{"should_log", false}}}, {"attributes", json::object()}}}}},
            {"z_after", "caf\u00e9"}};
}

TEST(LogHistory, AnEmptyListIsWrittenAsTheTreeWritesIt) {
    LogHistory history;
    json state = state_at(3);
    const auto bytes = history.document(state);
    json expected = state_at(3);
    expected["log_history"] = json::array();
    EXPECT_EQ(bytes.str(), trainer_state_text(expected));
    EXPECT_EQ(state, state_at(3));  // lent, not kept
}

RC_GTEST_PROP(LogHistory, EverySaveIsTheTreesBytesAndSharesTheBuffer, ()) {
    LogHistory history;
    json logged = json::array();
    std::shared_ptr<const std::string> shared;
    const auto saves = *rc::gen::inRange(1, 6);
    for (int save = 0; save < saves; ++save) {
        const auto logs = *rc::gen::inRange(0, 5);
        for (int i = 0; i < logs; ++i) {
            const auto step = *rc::gen::inRange<std::int64_t>(0, 1'000'000);
            const double epoch = *rc::gen::arbitrary<double>();
            const double value = *rc::gen::arbitrary<double>();
            if (*rc::gen::arbitrary<bool>()) {
                history.append({{"loss", value}}, epoch, step);
                logged.push_back({{"epoch", epoch}, {"loss", value}, {"step", step}});
            } else {
                history.append({{"eval_score", -value}, {"eval_loss", value}, {"total_flos", 1.5}}, epoch,
                               step);
                logged.push_back({{"epoch", epoch},
                                  {"eval_loss", value},
                                  {"eval_score", -value},
                                  {"step", step},
                                  {"total_flos", 1.5}});
            }
        }
        const auto global_step = *rc::gen::inRange<std::int64_t>(0, 1000);
        json state = state_at(global_step);
        const auto bytes = history.document(state);
        json expected = state_at(global_step);
        expected["log_history"] = logged;
        RC_ASSERT(bytes.str() == trainer_state_text(expected));
        if (!logged.empty()) {
            RC_ASSERT(bytes.run_count() == 3U);
            if (shared != nullptr) {
                RC_ASSERT(bytes.begin()[1].buffer == shared);  // the same buffer, grown
            }
            shared = bytes.begin()[1].buffer;
        }
    }
}

TEST(LogHistory, ARestoredListWritesTheBytesItWasReadFrom) {
    LogHistory written;
    for (int step = 1; step <= 30; ++step) {
        written.append({{"loss", 1.0 / step}}, step / 4.0, step);
    }
    json state = state_at(30);
    const auto bytes = written.document(state);
    LogHistory restored;
    restored.restore(load_trainer_state(bytes.str()).at("log_history"));
    json again = state_at(30);
    const auto rewritten = restored.document(again);
    EXPECT_EQ(rewritten.str(), bytes.str());
    EXPECT_NE(rewritten.begin()[1].buffer, bytes.begin()[1].buffer);  // a buffer of its own
    // Loaded from the runs as written, the tree lacks the entries and their text is kept.
    const auto loaded = load_trainer_state(bytes);
    ASSERT_TRUE(loaded.log_history_text.has_value());
    json whole = load_trainer_state(bytes.str());
    whole.erase("log_history");
    EXPECT_EQ(loaded.state, whole);
    LogHistory from_text;
    from_text.restore_text(loaded.log_history_text->view());
    json third = state_at(30);
    EXPECT_EQ(from_text.document(third).str(), bytes.str());
    // Any other shape of the same bytes is parsed whole.
    EXPECT_EQ(load_trainer_state(FileBytes(bytes.str())).state, load_trainer_state(bytes.str()));
    restored.restore(json("not a list"));
    json fourth = state_at(30);
    json empty = state_at(30);
    empty["log_history"] = json::array();
    EXPECT_EQ(restored.document(fourth).str(), trainer_state_text(empty));
}

// json.dumps writes a grad_norm of nan or inf as NaN and Infinity, and json.loads reads them back
// (finding 28): so do the simulated save_to_json and load_from_json, through a whole-text parse (a
// damaged file's path) as well as through the kept runs.
TEST(LogHistory, ANonFiniteGradNormIsWrittenAndReadAsPythonDoes) {
    const double inf = std::numeric_limits<double>::infinity();
    LogHistory history;
    history.append({{"grad_norm", std::nan("")}, {"loss", 0.5}}, 0.25, 10);
    history.append({{"grad_norm", inf}, {"loss", 0.25}}, 0.5, 20);
    history.append({{"grad_norm", -inf}, {"loss", 0.125}}, 0.75, 30);
    json state = state_at(30);
    const auto text = history.document(state).str();
    EXPECT_NE(text.find("\n      \"grad_norm\": NaN,\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n      \"grad_norm\": Infinity,\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n      \"grad_norm\": -Infinity,\n"), std::string::npos) << text;
    const auto loaded = load_trainer_state(text);
    const auto& entries = loaded.at("log_history");
    ASSERT_EQ(entries.size(), 3U);
    EXPECT_TRUE(std::isnan(entries[0].at("grad_norm").get<double>()));
    EXPECT_EQ(entries[1].at("grad_norm").get<double>(), inf);
    EXPECT_EQ(entries[2].at("grad_norm").get<double>(), -inf);
    EXPECT_EQ(trainer_state_text(loaded), text);
    LogHistory restored;
    restored.restore(entries);
    json again = state_at(30);
    EXPECT_EQ(restored.document(again).str(), text);
}

}  // namespace
}  // namespace ckpt::sim::transformers
