// The one exception type the FileSystem port throws: operation, path and errno, so callers
// branch on the error number, never on message text. Depends on nothing.
#pragma once

#include <stdexcept>
#include <string>

namespace ckpt {

// An I/O failure at the FileSystem port. `error_number` is the errno value (real or simulated)
// so callers can tell ENOENT from EIO without parsing text.
class FileSystemError : public std::runtime_error {
  public:
    FileSystemError(std::string operation, std::string path, int error_number);
    // With `detail` in place of the errno text, when errno alone would mislead ("not a regular
    // file (a FIFO)" rather than "Invalid argument").
    FileSystemError(std::string operation, std::string path, int error_number, const std::string& detail);

    const std::string& operation() const noexcept { return operation_; }
    const std::string& path() const noexcept { return path_; }
    int error_number() const noexcept { return error_number_; }

  private:
    std::string operation_;
    std::string path_;
    int error_number_;
};

}  // namespace ckpt
