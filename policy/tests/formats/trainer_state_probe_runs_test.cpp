// The probes over runs against the probe of the joined text and against nlohmann's parse: a
// document whose log_history is a growing shared buffer, probed save after save, answers as its
// joined bytes do however the runs are cut, whatever lands in the bytes appended since the last
// probe, and whatever the head and the tail around the run hold; its global_step and the trigger
// callback's entry alike.
#include <cstdint>
#include <memory>
#include <rapidcheck.h>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/formats/trainer_state_probe.hpp"
#include "policy/tests/support/parsed_global_step.hpp"

namespace ckpt {
namespace {

using testing::agrees_with_parsed_trigger_entry;
using testing::parsed_global_step;
using ByteRun = FileBytes::Run;

std::string log_entry(int index) {
    return "    {\n      \"epoch\": 0." + std::to_string(index) +
           ",\n      \"eval_loss\": " + std::to_string(index * 0.25) +
           ",\n      \"note\": \"caf\\u00e9 [\",\n      \"step\": " + std::to_string(index * 10) + "\n    }";
}

const std::string kHead = "{\n  \"global_step\": 70,\n  \"log_history\": [\n";
const std::string kTail =
    "\n  ],\n  \"stateful_callbacks\": {\"E\": {\"args\": {}}, \"CheckpointEvaluationTriggerCallback\": "
    "{\"args\": {\"patience\": [1, 2.5]}, \"attributes\": {}}}\n}\n";

// head, the first `length` bytes of `log`, tail: a save's trainer_state.json.
FileBytes saved(const std::string& head, const std::shared_ptr<std::string>& log, std::size_t length,
                const std::string& tail) {
    return FileBytes{ByteRun{std::make_shared<const std::string>(head), head.size()}, ByteRun{log, length},
                     ByteRun{std::make_shared<const std::string>(tail), tail.size()}};
}

void append_entries(std::string& log, int from, int count) {
    for (int i = from; i < from + count; ++i) {
        log += (log.empty() ? "" : ",\n") + log_entry(i);
    }
}

TEST(TrainerStateProbeRuns, SaveAfterSaveOfAGrowingLogReadsTheStep) {
    auto log = std::make_shared<std::string>();
    for (int save = 0; save < 60; ++save) {
        append_entries(*log, save * 5, 5);
        const auto bytes = saved(kHead, log, log->size(), kTail);
        ASSERT_EQ(probe_global_step(bytes), 70) << "save " << save;
    }
    // An earlier, shorter save of the same buffer reads the same; one cut inside an entry does not.
    EXPECT_EQ(probe_global_step(saved(kHead, log, log->size() / 2, kTail)),
              parsed_global_step(saved(kHead, log, log->size() / 2, kTail).str()));
    const auto entry_end = log->rfind("}", log->size() / 3) + 1;
    EXPECT_EQ(probe_global_step(saved(kHead, log, entry_end, kTail)), 70);
    EXPECT_EQ(probe_global_step(saved(kHead, log, entry_end - 1, kTail)), std::nullopt);
}

TEST(TrainerStateProbeRuns, ARunThatIsNotWhereElementsGoIsJudgedJoined) {
    auto log = std::make_shared<std::string>();
    append_entries(*log, 0, 200);
    // The same run as the value of global_step, inside a string, and after a number it would extend.
    EXPECT_EQ(probe_global_step(saved("{\"global_step\": [", log, log->size(), "]}")), std::nullopt);
    const auto in_string = saved("{\"global_step\": 3, \"s\": \"", log, log->size(), "\"}");
    EXPECT_EQ(probe_global_step(in_string), parsed_global_step(in_string.str()));
    EXPECT_EQ(probe_global_step(saved("{\"global_step\": 3, \"a\": [1 ", log, log->size(), "]}")),
              std::nullopt);
    EXPECT_EQ(probe_global_step(saved("{\"global_step\": 3, \"a\": [1, ", log, log->size(), "]}")), 3);
    EXPECT_EQ(probe_global_step(saved("{\"global_step\": 3, \"a\": [", log, log->size(), ", ]}")),
              std::nullopt);
    EXPECT_EQ(probe_global_step(saved("{\"global_step\": 3, \"a\": [", log, log->size(), "]]}")),
              std::nullopt);
}

TEST(TrainerStateProbeRuns, TheTriggerEntryIsTheLastOneEvenAroundTheRun) {
    auto log = std::make_shared<std::string>();
    append_entries(*log, 0, 200);
    const std::string kClass = "\"CheckpointEvaluationTriggerCallback\"";
    const auto probed = [&](const std::string& head, const std::string& tail) {
        const auto bytes = saved(head, log, log->size(), tail);
        EXPECT_TRUE(agrees_with_parsed_trigger_entry(probe_trigger_callback_entry(bytes), bytes.str()))
            << head;
        return probe_trigger_callback_entry(bytes);
    };
    EXPECT_EQ(probed(kHead, kTail), "{\"args\": {\"patience\": [1, 2.5]}, \"attributes\": {}}");
    // The run inside the entry: its text is the joined bytes', not the skeleton's.
    EXPECT_EQ(probed("{\"stateful_callbacks\": {" + kClass + ": [", "]}}"), "[" + *log + "]");
    // The run beside it, inside another callback's entry.
    EXPECT_EQ(probed("{\"stateful_callbacks\": {" + kClass + ": 1, \"E\": [", "]}}"), "1");
    // The last of two, an escaped name among them, in the last stateful_callbacks only.
    EXPECT_EQ(probed("{\"stateful_callbacks\": {" + kClass +
                         ": 1, \"CheckpointEvaluation\\u0054riggerCallback\": 2}, \"l\": [",
                     "]}"),
              "2");
    EXPECT_EQ(probed("{\"stateful_callbacks\": {" + kClass + ": 1}, \"l\": [",
                     "], \"stateful\\u005fcallbacks\": {}}"),
              std::nullopt);
    EXPECT_EQ(probed("{\"stateful_callbacks\": {" + kClass + ": 1}, \"l\": [",
                     "], \"stateful_callbacks\": {" + kClass + ":[]}}"),
              "[]");
    // Not an entry of stateful_callbacks: deeper, in an array, at the top level.
    EXPECT_EQ(probed("{\"stateful_callbacks\": {\"E\": {" + kClass + ": 1}}, \"l\": [", "]}"), std::nullopt);
    EXPECT_EQ(probed("{\"stateful_callbacks\": [{" + kClass + ": 1}], \"l\": [", "]}"), std::nullopt);
    EXPECT_EQ(probed("{" + kClass + ": 1, \"l\": [", "]}"), std::nullopt);
    // An invalid document.
    EXPECT_EQ(probed("{\"stateful_callbacks\": {" + kClass + ": 1}, \"l\": [", "],}"), std::nullopt);
    // One run is scanned as it is.
    EXPECT_EQ(probe_trigger_callback_entry(
                  FileBytes(std::string("{\"stateful_callbacks\": {" + kClass + ": {\"a\": 1}}}"))),
              "{\"a\": 1}");
    EXPECT_EQ(probe_trigger_callback_entry(
                  FileBytes(std::string("{\"stateful_callbacks\": {" + kClass + ": {\"a\": 1}}"))),
              std::nullopt);
    EXPECT_EQ(probe_trigger_callback_entry(FileBytes()), std::nullopt);
}

// Saves of one buffer, each appending entries and sometimes a random edit in the appended
// bytes only (below a saved length nothing changes), the head and tail edited at random, the
// run cut at random lengths: every probe answers as nlohmann does for the joined text.
RC_GTEST_PROP(TrainerStateProbeRuns, AgreesWithAParsedTreeSaveAfterSave, ()) {
    const auto edit = [](std::string& text, std::size_t from) {
        if (text.size() <= from) {
            return;
        }
        const auto at = *rc::gen::inRange<std::size_t>(from, text.size());
        const char byte =
            *rc::gen::element('{', '}', '[', ']', ',', ':', '"', '\\', '0', '9', ' ', '\x00', '\xff');
        if (*rc::gen::arbitrary<bool>()) {
            text[at] = byte;
        } else {
            text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte);
        }
    };
    auto log = std::make_shared<std::string>();
    int entries = 0;
    const auto saves = *rc::gen::inRange(1, 12);
    for (int save = 0; save < saves; ++save) {
        const auto from = log->size();
        const auto added = *rc::gen::inRange(0, 40);
        append_entries(*log, entries, added);
        entries += added;
        if (*rc::gen::inRange(0, 4) == 0) {
            edit(*log, from);
        }
        std::string head = kHead;
        std::string tail = kTail;
        if (*rc::gen::inRange(0, 4) == 0) {
            edit(head, 0);
        }
        if (*rc::gen::inRange(0, 4) == 0) {
            edit(tail, 0);
        }
        const auto length = *rc::gen::weightedOneOf<std::size_t>(
            {{3, rc::gen::just(log->size())}, {1, rc::gen::inRange<std::size_t>(0, log->size() + 1)}});
        const auto bytes = saved(head, log, length, tail);
        RC_ASSERT(probe_global_step(bytes) == parsed_global_step(bytes.str()));
        RC_ASSERT(agrees_with_parsed_trigger_entry(probe_trigger_callback_entry(bytes), bytes.str()));
    }
}

}  // namespace
}  // namespace ckpt
