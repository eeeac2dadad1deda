// A FileSystem view that forwards reads and refuses every change (std::logic_error), so
// `ckptsim inspect` cannot modify a user's directory whatever the code it runs does.
// Header-only; depends on the port only.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// A view of a FileSystem that answers every read and refuses every change with
// std::logic_error. `ckptsim inspect` runs the real callback code over a user's training
// directory; this makes "inspect never modifies the directory" hold by construction, whatever
// a future change to that code does.
class ReadOnlyFileSystem final : public FileSystem {
  public:
    explicit ReadOnlyFileSystem(FileSystem& inner) : inner_(inner) {}

    std::string read_file(const std::string& path) override { return inner_.read_file(path); }
    FileBytes read_bytes(const std::string& path) override { return inner_.read_bytes(path); }
    std::vector<std::string> list_dir(const std::string& path) override { return inner_.list_dir(path); }
    bool exists(const std::string& path) override { return inner_.exists(path); }
    bool is_dir(const std::string& path) override { return inner_.is_dir(path); }
    bool is_symlink(const std::string& path) override { return inner_.is_symlink(path); }
    std::string readlink(const std::string& path) override { return inner_.readlink(path); }

    void write_file(const std::string& path, std::string_view) override { refuse("write_file", path); }
    void fsync_file(const std::string& path) override { refuse("fsync_file", path); }
    void fsync_dir(const std::string& path) override { refuse("fsync_dir", path); }
    void rename(const std::string& from, const std::string&) override { refuse("rename", from); }
    void unlink(const std::string& path) override { refuse("unlink", path); }
    void mkdir(const std::string& path) override { refuse("mkdir", path); }
    void remove_tree(const std::string& path) override { refuse("remove_tree", path); }
    void symlink(const std::string&, const std::string& link_path) override { refuse("symlink", link_path); }

  private:
    [[noreturn]] static void refuse(const char* operation, const std::string& path) {
        throw std::logic_error(std::string("read-only file system: refused ") + operation + " " + path);
    }

    FileSystem& inner_;
};

}  // namespace ckpt
