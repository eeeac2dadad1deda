// FileSystemError's message, "<operation> '<path>': <errno text>". Thread-safe: no strerror
// static buffer, so ranks failing at once cannot garble each other's messages.
#include "policy/ports/file_system_error.hpp"

#include <system_error>
#include <utility>

namespace ckpt {

namespace {

std::string describe(const std::string& operation, const std::string& path, int error_number) {
    // generic_category().message is strerror's text without strerror's shared static buffer,
    // so ranks failing at once on several threads cannot garble each other's messages.
    return operation + " '" + path + "': " + std::generic_category().message(error_number);
}

}  // namespace

FileSystemError::FileSystemError(std::string operation, std::string path, int error_number)
    : std::runtime_error(describe(operation, path, error_number)),
      operation_(std::move(operation)),
      path_(std::move(path)),
      error_number_(error_number) {}

FileSystemError::FileSystemError(std::string operation, std::string path, int error_number,
                                 const std::string& detail)
    : std::runtime_error(operation + " '" + path + "': " + detail),
      operation_(std::move(operation)),
      path_(std::move(path)),
      error_number_(error_number) {}

}  // namespace ckpt
