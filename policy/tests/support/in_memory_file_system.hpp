// A map-backed FileSystem for unit tests that need the port's semantics but not a crash model.
// Same errno values as PosixFileSystem (one contract suite runs on both); fsync is a no-op.
// Test-only; depends on the FileSystem port only.
#pragma once

#include <cerrno>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// A FileSystem that lives in a std::map, for unit tests of code that only needs the port's
// semantics and none of the simulator's crash model. It answers with the same errno values as
// PosixFileSystem (file_system_test.cpp runs one suite against both), so a test that passes
// here is not relying on a convenience the real file system lacks.
//
// Relative paths resolve against "/". fsync is a no-op: nothing here can be lost.
class InMemoryFileSystem final : public FileSystem {
  public:
    InMemoryFileSystem() { nodes_.emplace("/", Node{Kind::directory, {}}); }

    std::string read_file(const std::string& path) override {
        const Node& node = existing("read_file", path, true);
        if (node.kind == Kind::directory) {
            throw FileSystemError("read_file", path, EISDIR);
        }
        return node.data;
    }

    void write_file(const std::string& path, std::string_view data) override {
        // Following a dangling link creates its target, as open(O_CREAT) does.
        const std::string key = resolve("write_file", path, true);
        auto found = nodes_.find(key);
        if (found != nodes_.end() && found->second.kind == Kind::directory) {
            throw FileSystemError("write_file", path, EISDIR);
        }
        nodes_[key] = Node{Kind::file, std::string(data)};
    }

    void fsync_file(const std::string& path) override { existing("fsync_file", path, true); }

    void fsync_dir(const std::string& path) override {
        if (existing("fsync_dir", path, true).kind != Kind::directory) {
            throw FileSystemError("fsync_dir", path, ENOTDIR);
        }
    }

    void rename(const std::string& from, const std::string& to) override {
        const std::string described = from + "' -> '" + to;
        const std::string source = resolve("rename", from, false, described);
        const std::string destination = resolve("rename", to, false, described);
        const auto moving = nodes_.find(source);
        if (moving == nodes_.end()) {
            throw FileSystemError("rename", described, ENOENT);
        }
        if (source == destination) {
            return;
        }
        const auto replaced = nodes_.find(destination);
        if (moving->second.kind == Kind::directory) {
            if (source == "/" || destination.starts_with(child_prefix(source))) {
                throw FileSystemError("rename", described, EINVAL);
            }
            if (replaced != nodes_.end() && replaced->second.kind != Kind::directory) {
                throw FileSystemError("rename", described, ENOTDIR);
            }
            if (replaced != nodes_.end() && !children(destination).empty()) {
                throw FileSystemError("rename", described, ENOTEMPTY);
            }
        } else if (replaced != nodes_.end() && replaced->second.kind == Kind::directory) {
            throw FileSystemError("rename", described, EISDIR);
        }
        std::map<std::string, Node> moved;
        for (const std::string& key : subtree(source)) {
            moved.emplace(destination + key.substr(source.size()), std::move(nodes_.at(key)));
            nodes_.erase(key);
        }
        nodes_.erase(destination);
        nodes_.merge(moved);
    }

    void unlink(const std::string& path) override {
        const std::string key = resolve("unlink", path, false);
        const auto found = nodes_.find(key);
        if (found == nodes_.end()) {
            throw FileSystemError("unlink", path, ENOENT);
        }
        if (found->second.kind == Kind::directory) {
            throw FileSystemError("unlink", path, EISDIR);
        }
        nodes_.erase(found);
    }

    void mkdir(const std::string& path) override {
        const std::string key = resolve("mkdir", path, false);
        if (nodes_.contains(key)) {
            if (is_dir(path)) {
                return;
            }
            throw FileSystemError("mkdir", path, EEXIST);
        }
        nodes_.emplace(key, Node{Kind::directory, {}});
    }

    void remove_tree(const std::string& path) override {
        std::string key;
        try {
            key = resolve("remove_tree", path, false);
        } catch (const FileSystemError& error) {
            if (error.error_number() == ENOENT || error.error_number() == ENOTDIR) {
                return;
            }
            throw;
        }
        const auto found = nodes_.find(key);
        if (found == nodes_.end()) {
            return;
        }
        if (found->second.kind != Kind::directory) {
            throw FileSystemError("remove_tree", path, ENOTDIR);
        }
        for (const std::string& doomed : subtree(key)) {
            if (doomed != "/") {
                nodes_.erase(doomed);
            }
        }
    }

    std::vector<std::string> list_dir(const std::string& path) override {
        const std::string key = resolve("list_dir", path, true);
        const auto found = nodes_.find(key);
        if (found == nodes_.end()) {
            throw FileSystemError("list_dir", path, ENOENT);
        }
        if (found->second.kind != Kind::directory) {
            throw FileSystemError("list_dir", path, ENOTDIR);
        }
        return children(key);
    }

    bool exists(const std::string& path) override { return kind_of(path, true) != Kind::absent; }
    bool is_dir(const std::string& path) override { return kind_of(path, true) == Kind::directory; }
    bool is_symlink(const std::string& path) override { return kind_of(path, false) == Kind::symlink; }

    void symlink(const std::string& target, const std::string& link_path) override {
        if (target.empty()) {
            throw FileSystemError("symlink", link_path, ENOENT);
        }
        const std::string key = resolve("symlink", link_path, false);
        if (nodes_.contains(key)) {
            throw FileSystemError("symlink", link_path, EEXIST);
        }
        nodes_.emplace(key, Node{Kind::symlink, target});
    }

    std::string readlink(const std::string& path) override {
        const Node& node = existing("readlink", path, false);
        if (node.kind != Kind::symlink) {
            throw FileSystemError("readlink", path, EINVAL);
        }
        return node.data;
    }

  private:
    enum class Kind { absent, file, directory, symlink };
    struct Node {
        Kind kind;
        std::string data;  // file contents, or a symlink's target verbatim
    };

    static constexpr int kMaxSymlinkHops = 40;  // Linux's MAXSYMLINKS

    static std::deque<std::string> split(std::string_view path) {
        std::deque<std::string> parts;
        while (!path.empty()) {
            const auto slash = path.find('/');
            const std::string_view part = path.substr(0, slash);
            if (!part.empty() && part != ".") {
                parts.emplace_back(part);
            }
            path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
        }
        return parts;
    }

    static std::string key_of(const std::vector<std::string>& parts) {
        std::string key;
        for (const std::string& part : parts) {
            key.append("/").append(part);
        }
        return key.empty() ? "/" : key;
    }

    static std::string child_prefix(const std::string& key) { return key == "/" ? key : key + "/"; }

    // The map key of `path` with every symlink on the way replaced by its target (the last
    // component too when `follow_last`). The last component may be missing; every earlier one
    // must be a directory, as for the real path walk.
    std::string resolve(const char* operation, const std::string& path, bool follow_last,
                        const std::string& described = {}) const {
        const std::string& shown = described.empty() ? path : described;
        if (path.empty()) {
            throw FileSystemError(operation, shown, ENOENT);
        }
        std::deque<std::string> remaining = split(path);
        std::vector<std::string> resolved;
        int hops = 0;
        while (!remaining.empty()) {
            std::string part = std::move(remaining.front());
            remaining.pop_front();
            if (part == "..") {
                if (!resolved.empty()) {
                    resolved.pop_back();
                }
                continue;
            }
            resolved.push_back(std::move(part));
            const bool last = remaining.empty();
            const auto found = nodes_.find(key_of(resolved));
            if (found == nodes_.end()) {
                if (last) {
                    break;
                }
                throw FileSystemError(operation, shown, ENOENT);
            }
            if (found->second.kind == Kind::symlink && (!last || follow_last)) {
                if (++hops > kMaxSymlinkHops) {
                    throw FileSystemError(operation, shown, ELOOP);
                }
                // A relative target is relative to the directory holding the link.
                resolved.pop_back();
                if (found->second.data.starts_with('/')) {
                    resolved.clear();
                }
                std::deque<std::string> target = split(found->second.data);
                remaining.insert(remaining.begin(), target.begin(), target.end());
                continue;
            }
            if (!last && found->second.kind != Kind::directory) {
                throw FileSystemError(operation, shown, ENOTDIR);
            }
        }
        return key_of(resolved);
    }

    const Node& existing(const char* operation, const std::string& path, bool follow_last) const {
        const auto found = nodes_.find(resolve(operation, path, follow_last));
        if (found == nodes_.end()) {
            throw FileSystemError(operation, path, ENOENT);
        }
        return found->second;
    }

    Kind kind_of(const std::string& path, bool follow_last) const {
        try {
            const auto found = nodes_.find(resolve("stat", path, follow_last));
            return found == nodes_.end() ? Kind::absent : found->second.kind;
        } catch (const FileSystemError&) {
            // Every failure resolve() reports (ENOENT, ENOTDIR, ELOOP) means "absent" to a stat.
            return Kind::absent;
        }
    }

    // Names directly inside directory `key`, in byte order (the map's order).
    std::vector<std::string> children(const std::string& key) const {
        const std::string prefix = child_prefix(key);
        std::vector<std::string> names;
        for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix);
             ++it) {
            const std::string_view rest = std::string_view(it->first).substr(prefix.size());
            if (!rest.empty() && rest.find('/') == std::string_view::npos) {
                names.emplace_back(rest);
            }
        }
        return names;
    }

    // `key` and every key below it.
    std::vector<std::string> subtree(const std::string& key) const {
        std::vector<std::string> keys{key};
        const std::string prefix = child_prefix(key);
        for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix);
             ++it) {
            if (it->first != key) {
                keys.push_back(it->first);
            }
        }
        return keys;
    }

    std::map<std::string, Node> nodes_;
};

}  // namespace ckpt
