// The FileSystem port over real POSIX calls, for a real training output directory. No
// buffering or caching of its own: durability is exactly the syscalls' (what the simulator's
// crash model imitates). remove_tree never follows a symlink; read_file reads only regular
// files (never a FIFO or a device, even through a symlink) up to a size cap. Depends on the port.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// The FileSystem port over the real POSIX calls, used when the callback runs against a real
// training output directory. Every call maps to the syscall whose durability rules the
// simulator's crash model imitates, so nothing here adds buffering or caching of its own.
class PosixFileSystem final : public FileSystem {
  public:
    // Larger than any trainer_state.json or sidecar a real run writes (a log_history entry per
    // step for a million steps is about 200 MiB), small enough that a hostile file cannot
    // exhaust memory.
    static constexpr std::uint64_t kDefaultMaxReadBytes = std::uint64_t{256} << 20;

    explicit PosixFileSystem(std::uint64_t max_read_bytes = kDefaultMaxReadBytes)
        : max_read_bytes_(max_read_bytes) {}

    // Opens without blocking (O_NONBLOCK), then refuses what fstat says is not a regular file
    // (EINVAL naming its kind; EISDIR for a directory) and files over the cap (EFBIG).
    std::string read_file(const std::string& path) override;
    void write_file(const std::string& path, std::string_view data) override;
    void fsync_file(const std::string& path) override;
    void fsync_dir(const std::string& path) override;
    void rename(const std::string& from, const std::string& to) override;
    void unlink(const std::string& path) override;
    void mkdir(const std::string& path) override;
    // A symlink at `path` or inside the tree is removed, never followed, so a link pointing out
    // of the tree (such as final_checkpoint) cannot make us delete its target. `path` itself
    // must be a real directory (ENOTDIR otherwise), as with Python's shutil.rmtree.
    void remove_tree(const std::string& path) override;
    std::vector<std::string> list_dir(const std::string& path) override;
    bool exists(const std::string& path) override;
    bool is_dir(const std::string& path) override;
    bool is_symlink(const std::string& path) override;
    void symlink(const std::string& target, const std::string& link_path) override;
    std::string readlink(const std::string& path) override;

  private:
    std::uint64_t max_read_bytes_;
};

}  // namespace ckpt
