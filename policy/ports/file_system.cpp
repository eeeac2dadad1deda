// The port's path helpers and make_dirs, over the port's own calls only, so they behave the
// same on every backend.
#include "policy/ports/file_system.hpp"

namespace ckpt {

namespace {

// Trailing separators carry no meaning ("a/b/" names the same entry as "a/b"), but a lone "/"
// is the root and must survive.
std::string_view strip_trailing_slashes(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') {
        path.remove_suffix(1);
    }
    return path;
}

}  // namespace

FileBytes FileSystem::read_bytes(const std::string& path) {
    return FileBytes(read_file(path));
}

std::string join_path(std::string_view directory, std::string_view name) {
    if (directory.empty()) {
        return std::string(name);
    }
    if (name.empty()) {
        return std::string(directory);
    }
    while (!directory.empty() && directory.back() == '/') {
        directory.remove_suffix(1);
    }
    while (!name.empty() && name.front() == '/') {
        name.remove_prefix(1);
    }
    std::string joined;
    joined.reserve(directory.size() + 1 + name.size());
    joined.append(directory).append("/").append(name);
    return joined;
}

std::string parent_path(std::string_view path) {
    path = strip_trailing_slashes(path);
    const auto slash = path.rfind('/');
    if (slash == std::string_view::npos) {
        return ".";
    }
    if (slash == 0) {
        return "/";
    }
    // "a//b" has parent "a", not "a/".
    return std::string(strip_trailing_slashes(path.substr(0, slash)));
}

std::string base_name(std::string_view path) {
    path = strip_trailing_slashes(path);
    if (path == "/") {
        return "";
    }
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

void make_dirs(FileSystem& fs, const std::string& path) {
    const std::string_view trimmed = strip_trailing_slashes(path);
    if (trimmed.empty() || trimmed == "/" || trimmed == ".") {
        return;
    }
    const std::string target(trimmed);
    // Checking first keeps the common case (the directory already exists) to one call, which
    // matters to the simulator where every call is a traced operation.
    if (fs.is_dir(target)) {
        return;
    }
    const std::string parent = parent_path(target);
    if (parent != target) {
        make_dirs(fs, parent);
    }
    fs.mkdir(target);
}

}  // namespace ckpt
