// Unit tests of the global_step probe: top level only, torn or empty text is not complete, and a
// non-integer step is not a step. The probe is a hand-written scanner, so it is also held to
// nlohmann::json::parse's answer (a tree, then its top-level global_step) on hand-picked edge
// cases and on every prefix and thousands of random byte edits of a real trainer_state.json.
#include "policy/formats/trainer_state_probe.hpp"

#include <cstdint>
#include <rapidcheck.h>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

#include "policy/tests/support/parsed_global_step.hpp"

namespace ckpt {
namespace {

using testing::parsed_global_step;

TEST(TrainerStateProbe, ReadsTopLevelGlobalStep) {
    EXPECT_EQ(probe_global_step(
                  R"({"epoch": 1.5, "global_step": 40, "stateful_callbacks": {"x": {"global_step": 7}}})"),
              40);
}

TEST(TrainerStateProbe, IgnoresNestedGlobalStep) {
    EXPECT_EQ(probe_global_step(R"({"log_history": [{"global_step": 7}], "a": {"global_step": 9}})"),
              std::nullopt);
}

TEST(TrainerStateProbe, TornOrEmptyDocumentsAreNotComplete) {
    EXPECT_EQ(probe_global_step(""), std::nullopt);
    EXPECT_EQ(probe_global_step(R"({"global_step": 40, "stateful_callbacks": {"Tr)"), std::nullopt);
    EXPECT_EQ(probe_global_step(R"([{"global_step": 40}])"), std::nullopt);
}

TEST(TrainerStateProbe, NonIntegerGlobalStepIsNotAStep) {
    EXPECT_EQ(probe_global_step(R"({"global_step": "40"})"), std::nullopt);
    EXPECT_EQ(probe_global_step(R"({"global_step": 40.0})"), std::nullopt);
    EXPECT_EQ(probe_global_step(R"({"global_step": 1, "global_step": null})"), std::nullopt);
}

// The probe remembers recent answers by the whole text: same-sized texts that differ in one
// byte, a torn text and its whole version, asked again and again, each keep their own answer.
TEST(TrainerStateProbe, RememberedAnswersFollowTheExactBytes) {
    for (int round = 0; round < 3; ++round) {
        EXPECT_EQ(probe_global_step(R"({"global_step": 41})"), 41);
        EXPECT_EQ(probe_global_step(R"({"global_step": 42})"), 42);
        EXPECT_EQ(probe_global_step(R"({"global_step": 42)"), std::nullopt);
        EXPECT_EQ(probe_global_step(R"({"global_step": 4.})"), std::nullopt);
        for (int step = 0; step < 20; ++step) {  // more texts than the memo holds
            EXPECT_EQ(probe_global_step(R"({"global_step": )" + std::to_string(100 + step) + "}"),
                      100 + step);
        }
    }
}

// A trainer_state.json as the simulated trainer writes it, with escapes and UTF-8 in it.
std::string realistic_trainer_state() {
    const nlohmann::json state = {
        {"best_global_step", 20},
        {"best_metric", 0.8125},
        {"best_model_checkpoint", "/run/output/checkpoint-20"},
        {"epoch", 1.5},
        {"global_step", 30},
        {"log_history", {{{"eval_score", -1.25e-3}, {"step", 10}}, {{"note", "caf\u00e9 \"q\" \\ \n"}}}},
        {"stateful_callbacks",
         {{"CheckpointEvaluationTriggerCallback",
           {{"args", {{"patience", 3}, {"tie_policy", "reset"}}},
            {"attributes",
             {{"state", {{"best_score", 0.8125}, {"stop_requested", false}, {"x", nullptr}}}}}}}}},
        {"total_flos", 0.0},
    };
    return state.dump(2) + "\n";
}

// Transformers' save_to_json is json.dumps(indent=2, sort_keys=True): a grad_norm of nan or inf
// is written as NaN or Infinity, and load_from_json reads it back. Such a checkpoint is complete.
TEST(TrainerStateProbe, ATrainerStateWithPythonsNonFiniteConstantsIsComplete) {
    const std::string text =
        "{\n  \"global_step\": 12,\n  \"log_history\": [\n    {\n      \"epoch\": 0.5,\n"
        "      \"grad_norm\": NaN,\n      \"loss\": 0.25,\n      \"step\": 10\n    },\n"
        "    {\n      \"grad_norm\": Infinity,\n      \"step\": 11\n    },\n"
        "    {\n      \"grad_norm\": -Infinity,\n      \"step\": 12\n    }\n  ]\n}\n";
    EXPECT_EQ(probe_global_step(text), 12);
}

TEST(TrainerStateProbe, AgreesWithAParsedTreeOnEdgeCases) {
    const std::vector<std::string> texts = {
        R"({"global_step": 5})",
        "\xEF\xBB\xBF{\"global_step\": 5}",  // a byte-order mark is skipped
        "\xEF\xBB{\"global_step\": 5}",      // part of one is not
        R"({"global\u005fstep": 6})",        // an escaped name is the same name
        R"({"global_step": -0})",
        R"({"global_step": -9223372036854775808})",
        R"({"global_step": 9223372036854775807})",
        R"({"global_step": 9223372036854775808})",
        R"({"global_step": 18446744073709551616})",
        R"({"global_step": 1e2})",
        R"({"global_step": 1.})",
        R"({"global_step": 01})",
        R"({"global_step": +1})",
        R"({"global_step": 5, "global_step": {}})",  // the last one wins, even a container
        R"({"global_step": 5, "global_step": []})",
        R"({"global_step": 5, "global_step": 7})",
        R"({"global_step": 5,})",
        R"({"global_step": 5} x)",
        "{\"global_step\": 5}\n\t\r ",
        R"({"a": "\ud83d\ude00", "global_step": 5})",
        R"({"a": "\ud83d", "global_step": 5})",
        R"({"a": "\ude00", "global_step": 5})",
        R"({"a": "\ud83d\u0041", "global_step": 5})",
        "{\"a\": \"\xED\xA0\x80\", \"global_step\": 5}",  // a UTF-8-encoded surrogate
        "{\"a\": \"\xC0\xAF\", \"global_step\": 5}",      // an overlong form
        "{\"a\": \"\xF4\x90\x80\x80\", \"global_step\": 5}",
        "{\"a\": \"\xF0\x9F\x98\x80\", \"global_step\": 5}",
        "{\"a\": \"\x1f\", \"global_step\": 5}",
        R"({"a": [1, [2, {"b": [true, false, null]}]], "global_step": 5})",
        R"({"a": tru, "global_step": 5})",
        R"({"a": NaN, "global_step": 5})",
        R"({"a": 1 /* c */, "global_step": 5})",
        R"({"a" 1, "global_step": 5})",
        R"({"a": "\x", "global_step": 5})",
        R"( {"global_step": 5})",
        "{\"global_step\": 5}\0",
        R"([])",
        R"("global_step")",
        R"({})",
        // Python's constants for a float that is not finite, which Transformers writes when it logs one.
        R"({"global_step": 5, "log_history": [{"grad_norm": NaN, "step": 5}]})",
        R"({"global_step": 5, "x": Infinity, "y": [-Infinity, NaN]})",
        R"({"global_step": NaN})",
        R"({"global_step": 5, "x": -NaN})",
        R"({"global_step": 5, "x": nan})",
        R"({"global_step": 5, "x": Infinit})",
        R"({"global_step": 5, "x": [1 NaN]})",
        R"({"global_step": 5, NaN: 1})",
        R"({"global_step": 5, "x": NaNa})",
        R"({"global_step": 5, "x": "NaN"})",
        R"({"global_step": 5, "x": -Infinityx})",
        // A number that converts to an infinite double is refused; one that underflows to zero is not.
        R"({"global_step": 5, "epoch": 2.45E923076923077})",
        R"({"global_step": 5, "epoch": 0.0838926174496e443})",
        R"({"global_step": 5, "x": 1e400})",
        R"({"global_step": 5, "x": -1.8e308})",
        R"({"global_step": 5, "x": 1.7976931348623157e308})",
        R"({"global_step": 5, "x": 0.0000001e309})",
        R"({"global_step": 5, "x": 1e-400})",
        R"({"global_step": 5, "x": 1e99999999999})",
        R"({"global_step": 5, "x": 1e-99999999999})",
        R"({"global_step": 5, "x": 0e99999})",
        "{\"global_step\": 5, \"x\": 0." + std::string(700, '0') + "1e400}",
        "{\"global_step\": 5, \"x\": " + std::string(310, '9') + "}",
        "{\"global_step\": 5, \"x\": " + std::string(308, '9') + "}",
        "{\"global_step\": 5, \"x\": " + std::string(310, '9') + ".5e-10}",
        std::string(100000, '[') + std::string(100000, ']'),
        "{\"global_step\": 5, \"deep\": " + std::string(100000, '[') + std::string(100000, ']') + "}",
        "{\"global_step\": 5, \"deep\": " + std::string(100000, '[') + "}",
    };
    for (const auto& text : texts) {
        EXPECT_EQ(probe_global_step(text), parsed_global_step(text)) << text.substr(0, 80);
    }
}

TEST(TrainerStateProbe, AgreesWithAParsedTreeOnEveryPrefix) {
    const auto text = realistic_trainer_state();
    ASSERT_EQ(probe_global_step(text), 30);
    for (std::size_t size = 0; size < text.size(); ++size) {
        const auto prefix = text.substr(0, size);
        ASSERT_EQ(probe_global_step(prefix), parsed_global_step(prefix)) << prefix;
    }
}

// Byte edits of a real text: overwrites with bytes that matter to the grammar, insertions,
// deletions, and zero-filled tails (a torn write's shape).
RC_GTEST_PROP(TrainerStateProbe, AgreesWithAParsedTreeOnEditedTexts, ()) {
    auto text = realistic_trainer_state();
    const auto edits = *rc::gen::inRange(1, 4);
    for (int i = 0; i < edits; ++i) {
        const auto at = *rc::gen::inRange<std::size_t>(0, text.size());
        const char byte = *rc::gen::oneOf(
            rc::gen::element('{', '}', '[', ']', ',', ':', '"', '\\', 'u', '0', '9', '-', '.', 'e', ' ',
                             '\n'),
            rc::gen::element('\x00', '\x1f', '\x7f', '\x80', '\xbf', '\xc3', '\xed', '\xef', '\xf4', '\xff'),
            rc::gen::arbitrary<char>());
        switch (*rc::gen::inRange(0, 4)) {
            case 0:
                text[at] = byte;
                break;
            case 1:
                text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte);
                break;
            case 2:
                text.erase(at, 1);
                break;
            default:
                std::fill(text.begin() + static_cast<std::ptrdiff_t>(at), text.end(), '\0');
        }
        if (text.empty()) {
            break;
        }
    }
    RC_ASSERT(probe_global_step(text) == parsed_global_step(text));
}

// Random documents nlohmann writes, probed whole and with random global_step values.
RC_GTEST_PROP(TrainerStateProbe, ReadsTheStepOfAnyDocumentNlohmannWrites, ()) {
    const auto step = *rc::gen::arbitrary<std::int64_t>();
    std::string name;
    for (const auto& piece : *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
             "a", "\"", "\\", "\n", "\x01", "/", "\xc3\xa9", "\xf0\x9f\x98\x80", "global_step", "_"))) {
        name += piece;
    }
    nlohmann::json document = {{"global_step", step}, {"x", {{"y", *rc::gen::arbitrary<double>()}}}};
    document[name] = *rc::gen::container<std::vector<int>>(rc::gen::arbitrary<int>());
    const auto text = document.dump(*rc::gen::inRange(-1, 3), ' ', *rc::gen::arbitrary<bool>());
    RC_ASSERT(probe_global_step(text) == parsed_global_step(text));
}

}  // namespace
// A digit of a number turned into an exponent marker (finding 27: a corruption that still reads as
// JSON to Python, but overflows a double, which nlohmann refuses).
RC_GTEST_PROP(TrainerStateProbe, AgreesWithAParsedTreeWhenADigitBecomesAnExponent, ()) {
    auto text = realistic_trainer_state();
    std::vector<std::size_t> digits;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] >= '0' && text[at] <= '9') {
            digits.push_back(at);
        }
    }
    RC_PRE(!digits.empty());
    const auto at = *rc::gen::elementOf(digits);
    text[at] = *rc::gen::element('e', 'E');
    if (*rc::gen::arbitrary<bool>()) {
        text.insert(at + 1, *rc::gen::element<std::string>("3", "30", "300", "3000", "-400", "+9"));
    }
    RC_ASSERT(probe_global_step(text) == parsed_global_step(text));
}

}  // namespace ckpt
