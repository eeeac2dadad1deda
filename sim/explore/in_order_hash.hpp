// The exploration's trace hash, fed by workers that finish seeds out of order: each scenario's
// hash is folded in seed order as soon as every earlier seed has arrived, so memory stays bounded
// by the seeds in flight (not by how many run, which --time leaves open) and the result is the
// same for any number of jobs. Thread-safe; depends on sim/base's TraceHash.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "sim/base/trace_hash.hpp"

namespace ckpt::sim {

class InOrderHash {
  public:
    // Records that item `index` (0-based, in seed order) hashed to `value`.
    void add(std::uint64_t index, std::uint64_t value) {
        const std::lock_guard lock(mutex_);
        waiting_.emplace(index, value);
        for (auto next = waiting_.begin(); next != waiting_.end() && next->first == folded_;
             next = waiting_.erase(next)) {
            combined_.update_u64(next->second);
            ++folded_;
        }
    }

    // How many leading items are folded in; the hash covers exactly these.
    std::uint64_t folded() const {
        const std::lock_guard lock(mutex_);
        return folded_;
    }

    std::string hex() const {
        const std::lock_guard lock(mutex_);
        return combined_.hex();
    }

  private:
    mutable std::mutex mutex_;
    std::map<std::uint64_t, std::uint64_t> waiting_;  // finished ahead of an earlier seed
    std::uint64_t folded_ = 0;
    TraceHash combined_;
};

}  // namespace ckpt::sim
