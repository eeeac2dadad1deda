// FileBytes' joins and comparisons: every one walks the runs in order, so a run boundary is
// invisible to the result.
#include "policy/ports/file_bytes.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace ckpt {

FileBytes::FileBytes(std::string&& bytes) {
    if (!bytes.empty()) {
        size_ = bytes.size();
        runs_[0] = Run{std::make_shared<const std::string>(std::move(bytes)), size_};
        count_ = 1;
    }
}

FileBytes::FileBytes(std::string_view bytes) {
    if (!bytes.empty()) {
        size_ = bytes.size();
        runs_[0] = Run{std::make_shared<const std::string>(bytes), size_};
        count_ = 1;
    }
}

FileBytes::FileBytes(std::initializer_list<Run> runs) {
    if (runs.size() > kMaxRuns) {
        throw std::invalid_argument("FileBytes: more than " + std::to_string(kMaxRuns) + " runs");
    }
    for (const auto& run : runs) {
        if (run.buffer == nullptr || run.length > run.buffer->size()) {
            throw std::invalid_argument("FileBytes: a run without a buffer or longer than its buffer");
        }
        if (run.length != 0) {
            runs_[count_++] = run;
            size_ += run.length;
        }
    }
}

std::string FileBytes::str() const {
    return prefix(size_);
}

std::string FileBytes::prefix(std::size_t length) const {
    std::string joined;
    joined.reserve(std::min(length, size_));
    for (const auto& run : *this) {
        if (joined.size() == length) {
            break;
        }
        joined.append(run.view().substr(0, length - joined.size()));
    }
    return joined;
}

bool FileBytes::equals(std::string_view bytes) const noexcept {
    if (bytes.size() != size_) {
        return false;
    }
    for (const auto& run : *this) {
        if (bytes.substr(0, run.length) != run.view()) {
            return false;
        }
        bytes.remove_prefix(run.length);
    }
    return true;
}

bool FileBytes::equals(const FileBytes& other) const noexcept {
    if (size_ != other.size_) {
        return false;
    }
    const bool same_runs =
        count_ == other.count_ && std::equal(begin(), end(), other.begin(), [](const Run& a, const Run& b) {
            return a.buffer == b.buffer && a.length == b.length;
        });
    if (same_runs) {
        return true;
    }
    // Walk both run lists at once, comparing the overlapping stretches.
    const Run* mine = begin();
    const Run* theirs = other.begin();
    std::size_t mine_at = 0;
    std::size_t theirs_at = 0;
    while (mine != end()) {
        const auto a = mine->view().substr(mine_at);
        const auto b = theirs->view().substr(theirs_at);
        const auto length = std::min(a.size(), b.size());
        if (a.substr(0, length) != b.substr(0, length)) {
            return false;
        }
        mine_at += length;
        theirs_at += length;
        if (mine_at == mine->length) {
            ++mine;
            mine_at = 0;
        }
        if (theirs_at == theirs->length) {
            ++theirs;
            theirs_at = 0;
        }
    }
    return true;
}

}  // namespace ckpt
