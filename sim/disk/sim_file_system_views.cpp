// SimFileSystem's read-only views for oracles: existence, kind, bytes, link targets and listings
// in either the visible or the durable view, through the same path walk as the port's calls.
// Nothing here counts as an operation, fires a fault or changes a view.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

bool SimFileSystem::exists_in(FsView view, std::string_view path) const {
    const Lookup found = lookup(view, path, true);
    return found.error == 0 && found.inode != kNoInode;
}

bool SimFileSystem::is_dir_in(FsView view, std::string_view path) const {
    const Lookup found = lookup(view, path, true);
    return found.error == 0 && found.inode != kNoInode && node(found.inode).kind == EntryKind::directory;
}

std::optional<std::string> SimFileSystem::content_in(FsView view, std::string_view path) const {
    const Lookup found = lookup(view, path, true);
    if (found.error != 0 || found.inode == kNoInode || node(found.inode).kind != EntryKind::file) {
        return std::nullopt;
    }
    const Inode& file = node(found.inode);
    return string_of(view == FsView::visible ? file.visible_data : file.durable_data);
}

const SimFileSystem::Content* SimFileSystem::file_content_in(FsView view, std::string_view path) const {
    const Lookup found = lookup(view, path, true);
    if (found.error != 0 || found.inode == kNoInode || node(found.inode).kind != EntryKind::file) {
        return nullptr;
    }
    const Inode& file = node(found.inode);
    return view == FsView::visible ? &file.visible_data : &file.durable_data;
}

bool SimFileSystem::content_equals(FsView view, std::string_view path, std::string_view expected) const {
    const Content* data = file_content_in(view, path);
    return data != nullptr && (*data ? (*data)->equals(expected) : expected.empty());
}

bool SimFileSystem::content_equals(FsView view, std::string_view path, const FileBytes& expected) const {
    const Content* data = file_content_in(view, path);
    return data != nullptr && (*data ? (*data)->equals(expected) : expected.empty());
}

std::shared_ptr<const FileBytes> SimFileSystem::shared_content_in(FsView view, std::string_view path) const {
    const Content* data = file_content_in(view, path);
    return data != nullptr ? *data : nullptr;
}

std::optional<std::string> SimFileSystem::link_target_in(FsView view, std::string_view path) const {
    const Lookup found = lookup(view, path, false);
    if (found.error != 0 || found.inode == kNoInode || node(found.inode).kind != EntryKind::symlink) {
        return std::nullopt;
    }
    return node(found.inode).target;
}

std::vector<std::string_view> SimFileSystem::entry_names_in(FsView view, std::string_view path) const {
    std::vector<std::string_view> names;
    const Lookup found = lookup(view, path, true);
    if (found.error != 0 || found.inode == kNoInode || node(found.inode).kind != EntryKind::directory) {
        return names;
    }
    const Entries& children = entries(node(found.inode), view);
    names.reserve(children.size());
    for (const auto& [name, inode] : children) {
        names.push_back(name);
    }
    return names;
}

std::vector<FsEntry> SimFileSystem::snapshot(FsView view) const {
    std::vector<FsEntry> out;
    // An explicit stack instead of recursion. Children go on in reverse, so the smallest name is
    // popped first: depth-first, ascending order.
    std::vector<std::pair<InodeId, std::string>> walk{{kRoot, std::string()}};
    while (!walk.empty()) {
        auto [id, path] = std::move(walk.back());
        walk.pop_back();
        const Inode& inode = node(id);
        if (!path.empty()) {  // the root itself is not an entry
            FsEntry entry;
            entry.path = path;
            entry.kind = inode.kind;
            if (inode.kind == EntryKind::file) {
                entry.data = string_of(view == FsView::visible ? inode.visible_data : inode.durable_data);
            } else if (inode.kind == EntryKind::symlink) {
                entry.data = inode.target;
            }
            out.push_back(std::move(entry));
        }
        if (inode.kind == EntryKind::directory) {
            const Entries& children = entries(inode, view);
            for (auto it = children.rbegin(); it != children.rend(); ++it) {
                walk.emplace_back(it->second, path + "/" + it->first);
            }
        }
    }
    return out;
}

std::vector<std::string> SimFileSystem::list_recursive(FsView view) const {
    std::vector<std::string> paths;
    for (FsEntry& entry : snapshot(view)) {
        paths.push_back(std::move(entry.path));
    }
    return paths;
}

}  // namespace ckpt::sim
