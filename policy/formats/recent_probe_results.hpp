// A per-thread memo of a pure function of a text, keyed on the text's whole bytes: a lookup
// hits only when the bytes are identical to a text already probed, so the answer is the one
// the function gave for exactly those bytes. Bounded (a few small texts); depends on nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

// The last few (text, result) pairs of one thread. Texts above kMaxText are never kept, so the
// memory stays a few hundred KiB whatever the run's length.
template <typename Result>
class RecentProbeResults {
  public:
    static constexpr std::size_t kEntries = 8;
    static constexpr std::size_t kMaxText = 64 * 1024;

    // The result recorded for exactly these bytes, if any.
    std::optional<Result> find(std::string_view text) {
        for (auto& entry : entries_) {
            if (entry.used != 0 && entry.text.size() == text.size() && entry.text == text) {
                entry.used = ++clock_;
                return entry.result;
            }
        }
        return std::nullopt;
    }

    void remember(std::string_view text, const Result& result) {
        if (text.size() > kMaxText) {
            return;
        }
        Entry* oldest = &entries_[0];
        for (auto& entry : entries_) {
            if (entry.used < oldest->used) {
                oldest = &entry;
            }
        }
        oldest->text.assign(text);  // reuses the evicted entry's buffer
        oldest->result = result;
        oldest->used = ++clock_;
    }

  private:
    struct Entry {
        std::string text;
        Result result{};
        std::uint64_t used = 0;  // 0: empty
    };
    std::array<Entry, kEntries> entries_{};
    std::uint64_t clock_ = 0;
};

}  // namespace ckpt
