// FileBytes against the plain string it stands for: however the bytes are cut into runs, and
// whichever buffers the runs share, every join and comparison answers as the joined string does.
#include "policy/ports/file_bytes.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace ckpt {
namespace {

using ByteRun = FileBytes::Run;

ByteRun run_of(const std::shared_ptr<std::string>& buffer, std::size_t length) {
    return ByteRun{buffer, length};
}

// `text` cut at `cuts` (clamped, at most three cuts) into runs over buffers of their own, each
// buffer longer than its run, as an appending owner's would be.
FileBytes cut_into_runs(const std::string& text, std::vector<std::size_t> cuts) {
    cuts.resize(std::min<std::size_t>(cuts.size(), FileBytes::kMaxRuns - 1));
    for (auto& cut : cuts) {
        cut = text.empty() ? 0 : cut % (text.size() + 1);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(text.size());
    std::vector<ByteRun> runs;
    std::size_t from = 0;
    for (const auto cut : cuts) {
        auto buffer = std::make_shared<std::string>(text.substr(from, cut - from) + "appended later");
        runs.push_back(run_of(buffer, cut - from));
        from = cut;
    }
    while (runs.size() < FileBytes::kMaxRuns) {
        runs.push_back(run_of(std::make_shared<std::string>(), 0));
    }
    return FileBytes{runs[0], runs[1], runs[2], runs[3]};
}

TEST(FileBytes, OneRunHoldsItsString) {
    const FileBytes bytes(std::string("{\"global_step\": 5}"));
    EXPECT_EQ(bytes.run_count(), 1U);
    EXPECT_EQ(bytes.str(), "{\"global_step\": 5}");
    EXPECT_TRUE(FileBytes(std::string()).empty());
    EXPECT_EQ(FileBytes(std::string()).run_count(), 0U);
}

TEST(FileBytes, AppendingToTheBufferLeavesEarlierRunsAsTheyWere) {
    auto record = std::make_shared<std::string>("[1");
    const FileBytes first{ByteRun{record, record->size()}};
    record->append(", 2");
    const FileBytes second{ByteRun{record, record->size()}};
    EXPECT_EQ(first.str(), "[1");
    EXPECT_EQ(second.str(), "[1, 2");
    EXPECT_FALSE(first.equals(second));
    EXPECT_TRUE(first.equals(FileBytes{ByteRun{record, 2}}));
}

TEST(FileBytes, RefusesARunLongerThanItsBufferAndTooManyRuns) {
    const auto buffer = std::make_shared<std::string>("abc");
    EXPECT_THROW((FileBytes{ByteRun{buffer, 4}}), std::invalid_argument);
    EXPECT_THROW((FileBytes{ByteRun{nullptr, 0}}), std::invalid_argument);
    const ByteRun one{buffer, 1};
    EXPECT_THROW((FileBytes{one, one, one, one, one}), std::invalid_argument);
}

RC_GTEST_PROP(FileBytes, AnyCutAnswersAsTheJoinedString,
              (const std::string& text, const std::vector<std::size_t>& cuts,
               const std::vector<std::size_t>& other_cuts, std::size_t length)) {
    const FileBytes bytes = cut_into_runs(text, cuts);
    RC_ASSERT(bytes.size() == text.size());
    RC_ASSERT(bytes.str() == text);
    RC_ASSERT(bytes.prefix(length) == text.substr(0, std::min(length, text.size())));
    RC_ASSERT(bytes.equals(text));
    RC_ASSERT(bytes.equals(cut_into_runs(text, other_cuts)));
    RC_ASSERT(bytes.equals(bytes));
    if (!text.empty()) {
        std::string changed = text;
        changed[length % text.size()] ^= 1;
        RC_ASSERT(!bytes.equals(changed));
        RC_ASSERT(!bytes.equals(cut_into_runs(changed, other_cuts)));
        RC_ASSERT(!bytes.equals(text.substr(1)));
        RC_ASSERT(!bytes.equals(cut_into_runs(text.substr(1), other_cuts)));
    }
}

}  // namespace
}  // namespace ckpt
