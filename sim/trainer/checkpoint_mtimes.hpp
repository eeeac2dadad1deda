// The mtimes of the checkpoint directories on the simulated disk, in virtual milliseconds: a
// directory's mtime is the time an entry was last created in it, as a POSIX directory's is.
// Owned by the world, so it outlives incarnations; the trainer stamps it, rotation reads it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ckpt::sim {

class CheckpointMtimes {
  public:
    void touch(const std::string& name, std::int64_t now_ms) { mtimes_[name] = now_ms; }
    // None for a directory never stamped (it cannot exist on the simulated disk).
    std::optional<std::int64_t> mtime_ms(const std::string& name) const {
        const auto found = mtimes_.find(name);
        return found == mtimes_.end() ? std::nullopt : std::optional(found->second);
    }

    // Drops the stamps of directories `may_exist` says no view can ever show again (a new
    // directory of that name is stamped anew), so a long run keeps one per checkpoint on disk.
    template <class MayExist>
    void forget_unless(const MayExist& may_exist) {
        std::erase_if(mtimes_, [&](const auto& entry) { return !may_exist(entry.first); });
    }

  private:
    // Kept after a removal: a power loss can bring a removed directory back with its old mtime.
    std::map<std::string, std::int64_t, std::less<>> mtimes_;
};

}  // namespace ckpt::sim
