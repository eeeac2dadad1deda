#pragma once

// A fresh directory for one test, shared by the policy and sim tests: created with mkdtemp under
// the system temp directory, removed with everything in it afterwards.

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace ckpt::testing {

class TempDir {
  public:
    // The directory is named `<prefix>-XXXXXX`; throws std::system_error if it cannot be made.
    explicit TempDir(std::string_view prefix) : path_(make(prefix)) {}
    ~TempDir() {
        // A failed clean-up must not hide the test's own verdict.
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    // `name` inside the directory.
    std::string at(std::string_view name) const { return (std::filesystem::path(path_) / name).string(); }

  private:
    static std::string make(std::string_view prefix) {
        std::string pattern = std::string(prefix).append("-XXXXXX");
        pattern = (std::filesystem::temp_directory_path() / pattern).string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            const int error = errno;
            throw std::system_error(error, std::generic_category(), std::string("mkdtemp ").append(pattern));
        }
        return pattern;
    }

    std::string path_;
};

}  // namespace ckpt::testing
