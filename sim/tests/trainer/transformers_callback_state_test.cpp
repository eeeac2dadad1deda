// Transformers' own stateful-callback machinery, restated apart from the port: the export groups
// several callbacks of a class into a list; the refresh appends to a list, replaces a single
// state and raises KeyError for a class the stored states lack; the restore matches by position,
// rebuilds from the saved arguments without a word about a changed one, and warns only about
// stored classes nobody configured.
#include "sim/trainer/transformers_callback_state.hpp"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ckpt::sim {
namespace {

using nlohmann::json;

// A callback whose state is {"args": {"k": arg}, "attributes": {"n": count}}.
class Counting final : public ExportableState {
  public:
    Counting(std::string name, int arg, int count = 0) : name_(std::move(name)), arg_(arg), count_(count) {}
    std::string class_name() const override { return name_; }
    std::optional<std::string> state_key() const override { return "key-" + std::to_string(arg_); }
    json state() const override { return {{"args", {{"k", arg_}}}, {"attributes", {{"n", count_}}}}; }

  private:
    std::string name_;
    int arg_;
    int count_;
};

std::vector<const ExportableState*> views(const std::vector<std::unique_ptr<ExportableState>>& list) {
    std::vector<const ExportableState*> out;
    for (const auto& callback : list) {
        out.push_back(callback.get());
    }
    return out;
}

const TransformersCallbackState kTransformers;

TEST(TransformersCallbackState, ExportsAListForSeveralOfAClassAndNoStateKey) {
    std::vector<std::unique_ptr<ExportableState>> list;
    list.push_back(std::make_unique<Counting>("A", 1, 5));
    list.push_back(std::make_unique<Counting>("B", 2));
    list.push_back(std::make_unique<Counting>("B", 3));
    const auto exported = kTransformers.export_states(views(list));
    EXPECT_EQ(exported["A"], json::parse(R"({"args": {"k": 1}, "attributes": {"n": 5}})"));
    ASSERT_TRUE(exported["B"].is_array());
    EXPECT_EQ(exported["B"].size(), 2U);
    EXPECT_EQ(exported["B"][1]["args"]["k"], 3);
    EXPECT_FALSE(exported["B"][0].contains("state_key"));
}

TEST(TransformersCallbackState, TheRefreshAppendsToAListAndReplacesASingleState) {
    const auto stored = json::parse(R"({"A": {"args": {"k": 1}, "attributes": {"n": 0}},
                                        "B": [{"args": {"k": 2}, "attributes": {"n": 0}}]})");
    std::vector<std::unique_ptr<ExportableState>> list;
    list.push_back(std::make_unique<Counting>("A", 1, 7));
    list.push_back(std::make_unique<Counting>("A", 9, 8));  // one stored state, two live: the last wins
    list.push_back(std::make_unique<Counting>("B", 2, 4));
    const auto refreshed =
        kTransformers.refresh_states(stored, views(list), kTransformers.export_states(views(list)));
    EXPECT_EQ(refreshed["A"].size(), 2U) << refreshed.dump();  // the live list replaced the single state
    EXPECT_EQ(refreshed["B"].size(), 2U) << refreshed.dump();  // appended: the stale state stays first
    EXPECT_EQ(refreshed["B"][0]["attributes"]["n"], 0);
    EXPECT_EQ(refreshed["B"][1]["attributes"]["n"], 4);
}

// self.state.stateful_callbacks[cb_name]: a live class the resumed dict does not store raises
// before the dict changes, whatever the other classes.
TEST(TransformersCallbackState, TheRefreshRaisesKeyErrorForAClassTheStoredStatesLack) {
    const auto stored = json::parse(R"({"A": {"args": {"k": 1}, "attributes": {"n": 0}}})");
    std::vector<std::unique_ptr<ExportableState>> list;
    list.push_back(std::make_unique<Counting>("A", 1, 7));
    list.push_back(std::make_unique<Counting>("EarlyStoppingCallback", 2));
    try {
        transformers_refresh(stored, kTransformers.export_states(views(list)));
        FAIL() << "a class the stored states lack was refreshed";
    } catch (const RefreshKeyError& error) {
        EXPECT_EQ(std::string(error.what()).rfind("KeyError: 'EarlyStoppingCallback'", 0), 0U)
            << error.what();
    }
    list.pop_back();
    EXPECT_NO_THROW(transformers_refresh(stored, kTransformers.export_states(views(list))));
}

TEST(TransformersCallbackState, TheRestoreIsSilentAboutAChangedArgumentAndMatchesByPosition) {
    const auto saved = json::parse(R"({"B": [{"args": {"k": 2}, "attributes": {"n": 3}}],
                                       "Gone": {"args": {}, "attributes": {}}})");
    std::vector<std::unique_ptr<ExportableState>> configured;
    configured.push_back(std::make_unique<Counting>("A", 1));
    configured.push_back(std::make_unique<Counting>("B", 5));  // changed before the resume: 2 -> 5
    configured.push_back(std::make_unique<Counting>("B", 6));  // no stored state left for it
    const auto* kept_a = configured[0].get();
    const auto* kept_second_b = configured[2].get();
    std::vector<std::string> rebuilt;
    auto restored =
        kTransformers.restore(saved, std::move(configured), [&](const std::string& name, const json& state) {
            rebuilt.push_back(name);
            return std::make_unique<Counting>(name, state["args"]["k"].get<int>(),
                                              state["attributes"]["n"].get<int>());
        });
    ASSERT_EQ(restored.callbacks.size(), 3U);
    EXPECT_EQ(restored.callbacks[0].get(), kept_a);
    EXPECT_EQ(restored.callbacks[1]->state()["args"]["k"], 2);  // the saved argument, silently
    EXPECT_EQ(restored.callbacks[1]->state()["attributes"]["n"], 3);
    EXPECT_EQ(restored.callbacks[2].get(), kept_second_b);
    EXPECT_EQ(rebuilt, std::vector<std::string>{"B"});
    ASSERT_EQ(restored.warnings.size(), 1U);
    EXPECT_NE(restored.warnings[0].find("not included in current configuration. Ignoring. (Gone)"),
              std::string::npos);
}

}  // namespace
}  // namespace ckpt::sim
