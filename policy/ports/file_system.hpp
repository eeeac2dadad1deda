// The I/O port of the callback and the checkpoint writer, implemented by PosixFileSystem in
// production and SimFileSystem under test, so the code under test is the production code.
// POSIX semantics; every failure is a FileSystemError carrying errno. Depends on nothing in sim/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_bytes.hpp"
#include "policy/ports/file_system_error.hpp"

namespace ckpt {

// The I/O port of the callback and of a trainer's checkpoint writer. PosixFileSystem is the
// real implementation; the simulator's SimFileSystem implements the same calls over a
// crash-consistent model, so the policy code that runs in production is the code under test.
//
// Paths are plain '/'-separated strings. Every failure is a FileSystemError that names the
// operation, the path and the errno text. Nothing here follows the seed's Python quirks:
// callers decide what a missing file means.
class FileSystem {
  public:
    virtual ~FileSystem() = default;

    // Whole-file read. Throws FileSystemError (ENOENT, EISDIR, ...).
    virtual std::string read_file(const std::string& path) = 0;
    // The same read, as the runs the file system keeps the bytes in, so a reader can remember
    // what it learnt of a shared run (FileBytes). By default read_file's bytes as one run.
    virtual FileBytes read_bytes(const std::string& path);
    // Create or truncate, then write all of `data`. Durable only after fsync_file.
    virtual void write_file(const std::string& path, std::string_view data) = 0;
    virtual void fsync_file(const std::string& path) = 0;
    // Makes the directory's entries (create, rename, unlink) durable.
    virtual void fsync_dir(const std::string& path) = 0;
    // Atomic replace of `to`, as rename(2).
    virtual void rename(const std::string& from, const std::string& to) = 0;
    // Removes a file or a symlink (not a directory).
    virtual void unlink(const std::string& path) = 0;
    // Creates one directory; succeeds when it already exists as a directory.
    virtual void mkdir(const std::string& path) = 0;
    // Removes a directory and everything under it; a missing path is not an error.
    virtual void remove_tree(const std::string& path) = 0;
    // Entry names (not paths) in ascending byte order, without "." and "..".
    virtual std::vector<std::string> list_dir(const std::string& path) = 0;
    // exists/is_dir follow symlinks, like Python's Path.exists()/is_dir().
    virtual bool exists(const std::string& path) = 0;
    virtual bool is_dir(const std::string& path) = 0;
    // Does not follow the link.
    virtual bool is_symlink(const std::string& path) = 0;
    // Creates `link_path` pointing at `target` (stored verbatim, as symlink(2)).
    virtual void symlink(const std::string& target, const std::string& link_path) = 0;
    virtual std::string readlink(const std::string& path) = 0;
};

// Joins two path components with exactly one '/'.
std::string join_path(std::string_view directory, std::string_view name);
// The directory part of a path ("." when there is none).
std::string parent_path(std::string_view path);
// The last component of a path.
std::string base_name(std::string_view path);

// mkdir -p built from FileSystem::mkdir.
void make_dirs(FileSystem& fs, const std::string& path);

}  // namespace ckpt
