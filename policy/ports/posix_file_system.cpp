// The syscalls behind PosixFileSystem. Every descriptor is closed and a failed close is
// reported (it may be the only sign of a lost write); EINTR on close is not retried.
#include "policy/ports/posix_file_system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace ckpt {

namespace {

// Owns one descriptor. close() is separate from the destructor because a failed close can be
// the only report of a lost write (NFS, quotas), so the write path must be able to see it.
class FileDescriptor {
  public:
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }

    int get() const noexcept { return fd_; }

    // Linux frees the descriptor even when close fails with EINTR, so retrying could close a
    // descriptor another thread just opened; EINTR is therefore not an error here.
    int close() noexcept {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0 && errno != EINTR) {
            return errno;
        }
        return 0;
    }

  private:
    int fd_;
};

struct DirCloser {
    void operator()(DIR* dir) const noexcept { ::closedir(dir); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

FileDescriptor open_or_throw(const char* operation, const std::string& path, int flags, mode_t mode = 0) {
    for (;;) {
        const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
        if (fd >= 0) {
            return FileDescriptor(fd);
        }
        if (errno != EINTR) {
            throw FileSystemError(operation, path, errno);
        }
    }
}

void fsync_or_throw(const char* operation, const std::string& path, int fd) {
    while (::fsync(fd) != 0) {
        if (errno != EINTR) {
            throw FileSystemError(operation, path, errno);
        }
    }
}

// Python's Path.exists()/is_dir() answer false rather than raise for these: each means "there
// is no such entry on this path", not "the question could not be answered".
bool means_absent(int error_number) {
    return error_number == ENOENT || error_number == ENOTDIR || error_number == ELOOP;
}

// Reads a directory's names before anything is removed: POSIX leaves it unspecified whether
// readdir sees entries unlinked during the scan.
std::vector<std::string> read_names(DIR* dir, const std::string& path) {
    std::vector<std::string> names;
    for (;;) {
        errno = 0;
        const dirent* entry = ::readdir(dir);
        if (entry == nullptr) {
            if (errno != 0) {
                throw FileSystemError("list_dir", path, errno);
            }
            break;
        }
        const std::string_view name(entry->d_name);
        if (name != "." && name != "..") {
            names.emplace_back(name);
        }
    }
    return names;
}

// Works relative to open directory descriptors, with O_NOFOLLOW, so a directory swapped for
// a symlink mid-walk cannot redirect the deletion outside the tree.
void remove_contents(int dir_fd, const std::string& path) {
    DirHandle dir(::fdopendir(dir_fd));
    if (!dir) {
        const int error_number = errno;
        ::close(dir_fd);
        throw FileSystemError("remove_tree", path, error_number);
    }
    const int fd = ::dirfd(dir.get());
    for (const std::string& name : read_names(dir.get(), path)) {
        const std::string child = join_path(path, name);
        struct stat status {};
        if (::fstatat(fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) {
                continue;
            }
            throw FileSystemError("remove_tree", child, errno);
        }
        if (S_ISDIR(status.st_mode)) {
            const int child_fd = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child_fd < 0) {
                throw FileSystemError("remove_tree", child, errno);
            }
            remove_contents(child_fd, child);
        }
        if (::unlinkat(fd, name.c_str(), S_ISDIR(status.st_mode) ? AT_REMOVEDIR : 0) != 0 &&
            errno != ENOENT) {
            throw FileSystemError("remove_tree", child, errno);
        }
    }
}

const char* file_kind(mode_t mode) {
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return S_ISDIR(mode) ? "a directory" : "not a file";
}

std::string too_large(std::uint64_t cap) {
    return "larger than the " + std::to_string(cap >> 20) + " MiB that ckptsim reads";
}

}  // namespace

std::string PosixFileSystem::read_file(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer. The checks then run on what was
    // opened (fstat), so a path swapped between a check and the open cannot slip through.
    FileDescriptor fd = open_or_throw("read_file", path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0) {
        throw FileSystemError("read_file", path, errno);
    }
    if (!S_ISREG(status.st_mode)) {
        throw FileSystemError("read_file", path, S_ISDIR(status.st_mode) ? EISDIR : EINVAL,
                              std::string("not a regular file (") + file_kind(status.st_mode) + ")");
    }
    if (static_cast<std::uint64_t>(status.st_size) > max_read_bytes_) {
        throw FileSystemError("read_file", path, EFBIG, too_large(max_read_bytes_));
    }
    std::string contents;
    contents.reserve(static_cast<std::size_t>(status.st_size));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t count = ::read(fd.get(), buffer, sizeof buffer);
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw FileSystemError("read_file", path, errno);
        }
        if (count == 0) {
            return contents;
        }
        // A file still growing while it is read is held to the same cap.
        if (contents.size() + static_cast<std::size_t>(count) > max_read_bytes_) {
            throw FileSystemError("read_file", path, EFBIG, too_large(max_read_bytes_));
        }
        contents.append(buffer, static_cast<std::size_t>(count));
    }
}

void PosixFileSystem::write_file(const std::string& path, std::string_view data) {
    FileDescriptor fd = open_or_throw("write_file", path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    while (!data.empty()) {
        const ssize_t count = ::write(fd.get(), data.data(), data.size());
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw FileSystemError("write_file", path, errno);
        }
        if (count == 0) {
            // A write that makes no progress would loop forever; the kernel only does this
            // when it cannot store anything.
            throw FileSystemError("write_file", path, EIO);
        }
        data.remove_prefix(static_cast<std::size_t>(count));
    }
    if (const int error_number = fd.close(); error_number != 0) {
        throw FileSystemError("write_file", path, error_number);
    }
}

void PosixFileSystem::fsync_file(const std::string& path) {
    FileDescriptor fd = open_or_throw("fsync_file", path, O_RDONLY);
    fsync_or_throw("fsync_file", path, fd.get());
}

void PosixFileSystem::fsync_dir(const std::string& path) {
    FileDescriptor fd = open_or_throw("fsync_dir", path, O_RDONLY | O_DIRECTORY);
    fsync_or_throw("fsync_dir", path, fd.get());
}

void PosixFileSystem::rename(const std::string& from, const std::string& to) {
    if (::rename(from.c_str(), to.c_str()) != 0) {
        // The error type carries one path; both are needed to act on a failed rename.
        throw FileSystemError("rename", from + "' -> '" + to, errno);
    }
}

void PosixFileSystem::unlink(const std::string& path) {
    if (::unlink(path.c_str()) != 0) {
        throw FileSystemError("unlink", path, errno);
    }
}

void PosixFileSystem::mkdir(const std::string& path) {
    if (::mkdir(path.c_str(), 0777) == 0) {
        return;
    }
    const int error_number = errno;
    if (error_number == EEXIST && is_dir(path)) {
        return;
    }
    throw FileSystemError("mkdir", path, error_number);
}

void PosixFileSystem::remove_tree(const std::string& path) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            return;
        }
        throw FileSystemError("remove_tree", path, errno);
    }
    if (!S_ISDIR(status.st_mode)) {
        throw FileSystemError("remove_tree", path, ENOTDIR);
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        throw FileSystemError("remove_tree", path, errno);
    }
    remove_contents(fd, path);
    if (::rmdir(path.c_str()) != 0 && errno != ENOENT) {
        throw FileSystemError("remove_tree", path, errno);
    }
}

std::vector<std::string> PosixFileSystem::list_dir(const std::string& path) {
    DirHandle dir(::opendir(path.c_str()));
    if (!dir) {
        throw FileSystemError("list_dir", path, errno);
    }
    std::vector<std::string> names = read_names(dir.get(), path);
    // readdir order depends on the file system's hashing; callers need a stable order.
    std::sort(names.begin(), names.end());
    return names;
}

bool PosixFileSystem::exists(const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0) {
        return true;
    }
    if (means_absent(errno)) {
        return false;
    }
    throw FileSystemError("exists", path, errno);
}

bool PosixFileSystem::is_dir(const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0) {
        return S_ISDIR(status.st_mode);
    }
    if (means_absent(errno)) {
        return false;
    }
    throw FileSystemError("is_dir", path, errno);
}

bool PosixFileSystem::is_symlink(const std::string& path) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) == 0) {
        return S_ISLNK(status.st_mode);
    }
    if (means_absent(errno)) {
        return false;
    }
    throw FileSystemError("is_symlink", path, errno);
}

void PosixFileSystem::symlink(const std::string& target, const std::string& link_path) {
    if (::symlink(target.c_str(), link_path.c_str()) != 0) {
        throw FileSystemError("symlink", link_path, errno);
    }
}

std::string PosixFileSystem::readlink(const std::string& path) {
    std::string target(256, '\0');
    for (;;) {
        const ssize_t count = ::readlink(path.c_str(), target.data(), target.size());
        if (count < 0) {
            throw FileSystemError("readlink", path, errno);
        }
        // A result that fills the buffer may have been cut short: readlink does not say.
        if (static_cast<std::size_t>(count) < target.size()) {
            target.resize(static_cast<std::size_t>(count));
            return target;
        }
        target.resize(target.size() * 2);
    }
}

}  // namespace ckpt
