// The probe over runs against the probe of the joined text and against nlohmann's parse: a
// document whose log_history is a growing shared buffer, probed save after save, answers as its
// joined bytes do however the runs are cut, whatever lands in the bytes appended since the last
// probe, and whatever the head and the tail around the run hold.
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

using testing::parsed_global_step;
using ByteRun = FileBytes::Run;

std::string log_entry(int index) {
    return "    {\n      \"epoch\": 0." + std::to_string(index) +
           ",\n      \"eval_loss\": " + std::to_string(index * 0.25) +
           ",\n      \"note\": \"caf\\u00e9 [\",\n      \"step\": " + std::to_string(index * 10) + "\n    }";
}

const std::string kHead = "{\n  \"global_step\": 70,\n  \"log_history\": [\n";
const std::string kTail = "\n  ],\n  \"stateful_callbacks\": {}\n}\n";

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
    }
}

}  // namespace
}  // namespace ckpt
