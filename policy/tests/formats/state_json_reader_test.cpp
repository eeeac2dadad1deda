// load_state_dict_text against the general path it must equal: parse_untrusted_json (nlohmann,
// an independent parser) then load_state_dict. Written states take the exact reader; mutated and
// hostile texts must end the same way on both paths: the same state, or the same exception type
// and message, with the policy left unchanged on error.
#include "policy/formats/state_json_reader.hpp"

#include <cmath>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/base/untrusted_json.hpp"
#include "policy/formats/state_json_text.hpp"

namespace ckpt {
namespace {

// How a load ended: the state it left, or the error it threw.
struct Outcome {
    CheckpointEvaluationState state;
    std::string error_type;  // empty when it succeeded
    std::string message;
};

template <typename Load>
Outcome outcome_of(CheckpointEvaluationPolicy policy, Load&& load) {
    const auto before = policy.state();
    try {
        load(policy);
        return {policy.state(), {}, {}};
    } catch (const std::exception& error) {
        // On error nothing changes, on both paths.
        EXPECT_EQ(policy.state(), before);
        return {policy.state(), typeid(error).name(), error.what()};
    }
}

Outcome general_path(const CheckpointEvaluationPolicy& policy, const std::string& text) {
    return outcome_of(policy, [&](auto& p) { p.load_state_dict(parse_untrusted_json(text, "state")); });
}

Outcome text_path(const CheckpointEvaluationPolicy& policy, const std::string& text) {
    return outcome_of(policy, [&](auto& p) { load_state_dict_text(p, text, "state"); });
}

void expect_same(const CheckpointEvaluationPolicy& policy, const std::string& text) {
    const auto expected = general_path(policy, text);
    const auto actual = text_path(policy, text);
    EXPECT_EQ(actual.state, expected.state) << text;
    EXPECT_EQ(actual.error_type, expected.error_type) << text;
    EXPECT_EQ(actual.message, expected.message) << text;
}

const PolicySettings kSettings{5, TiePolicy::count, 200};

CheckpointEvaluationPolicy mid_run() {
    return CheckpointEvaluationPolicy(kSettings, CheckpointEvaluationState{.best_score = 0.8125,
                                                                           .best_step = 1'500,
                                                                           .lower_score_streak = 2,
                                                                           .evaluation_count = 37,
                                                                           .stop_requested = false,
                                                                           .best_is_external = true});
}

TEST(StateJsonReader, WrittenStatesTakeTheExactReader) {
    const auto source = mid_run();
    for (const int indent : {0, 2}) {
        CheckpointEvaluationPolicy target(kSettings);
        EXPECT_EQ(load_state_dict_text(target, state_dict_text(source, indent), "state"),
                  StateTextPath::exact);
        EXPECT_EQ(target.state(), source.state());
    }
}

TEST(StateJsonReader, HostileAndLooseTextsEndAsTheGeneralPathEnds) {
    const auto policy = CheckpointEvaluationPolicy(kSettings);
    const std::string state = R"("state":{"best_score":0.5,"best_step":3,"evaluation_count":1})";
    const std::vector<std::string> texts{
        R"({"version":1,"patience":5,"tie_policy":"count","patience_start_step":200,)" + state + "}",
        R"({"version":1,"version":1,)" + state + "}",                      // duplicate key
        R"({"state":{"best_score":0.5,"best_score":0.6,"best_step":3}})",  // duplicate nested key
        R"({"state":{"best_score":NaN,"best_step":3}})",
        R"({"state":{"best_score":1e999,"best_step":3}})",
        R"({"state":{"best_score":1e-999,"best_step":3}})",
        R"({"state":{"best_score":01.5,"best_step":3}})",
        R"({"state":{"best_score":1,"best_step":3.0}})",  // loose types the general path coerces
        R"({"patience":5.0,"tie_policy":" COUNT ",)" + state + "}",
        R"({"patience":6,)" + state + "}",  // other settings
        R"({"tie_policy":"reset",)" + state + "}",
        R"({"version":2,)" + state + "}",
        R"({"version":true,)" + state + "}",
        R"({"state":{"best_step":3}})",  // a step without a score
        R"({"state":{"lower_score_streak":-1}})",
        R"({"state":{"evaluation_count":99999999999999999999}})",
        R"({"state":{"stop_requested":1,"best_score":0.5,"best_step":1}})",
        R"({"state":[]})",
        R"({"best_score":0.5,"best_step":3})",  // a flat state
        R"({"state":{}})",
        R"({"extra":1,)" + state + "}",
        "{" + state + "} x",
        "{" + state + ",}",
        "{" + state,
        "[" + state + "]",
        "",
        "{\"state\":{\"best_score\":0.5,\"best_step\":3}\x01}",
        "{\"state\":{\"best_score\":0.5,\"best_step\":3},\"\xff\":1}",
        std::string(100, '[') + std::string(100, ']'),
    };
    for (const auto& text : texts) {
        expect_same(policy, text);
    }
}

// Every state a run reaches, written and then damaged one byte at a time, ends the same way.
RC_GTEST_PROP(StateJsonReader, MutatedTextsEndAsTheGeneralPathEnds, ()) {
    const auto tie =
        *rc::gen::element(TiePolicy::reset, TiePolicy::ignore, TiePolicy::stop, TiePolicy::count);
    CheckpointEvaluationPolicy source(PolicySettings{*rc::gen::inRange<std::int64_t>(1, 4), tie, 2});
    const auto scores = *rc::gen::container<std::vector<double>>(rc::gen::arbitrary<double>());
    std::int64_t step = 0;
    for (const double score : scores) {
        if (std::isfinite(score) && !source.state().stop_requested) {
            source.observe(score, ++step);
        }
    }
    auto text = state_dict_text(source, *rc::gen::element(0, 2));
    const auto edits = *rc::gen::inRange(0, 3);
    for (int i = 0; i < edits && !text.empty(); ++i) {
        const auto at = *rc::gen::inRange<std::size_t>(0, text.size());
        const char byte = *rc::gen::element('0', '9', '-', '.', 'e', ',', '"', '{', '}', ' ', ':', 'x', '\0');
        switch (*rc::gen::inRange(0, 3)) {
            case 0:
                text.erase(at, 1);
                break;
            case 1:
                text.insert(at, 1, byte);
                break;
            default:
                text[at] = byte;
        }
    }
    const CheckpointEvaluationPolicy target(source.settings());
    const auto expected = general_path(target, text);
    const auto actual = text_path(target, text);
    RC_ASSERT(actual.state == expected.state);
    RC_ASSERT(actual.error_type == expected.error_type);
    RC_ASSERT(actual.message == expected.message);
    if (edits == 0) {
        RC_ASSERT(actual.state == source.state());
    }
}

}  // namespace
}  // namespace ckpt
