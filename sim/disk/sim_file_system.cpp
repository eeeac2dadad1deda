// SimFileSystem's port operations: each call is counted, observed (where the simulator crashes a
// process), fault-checked, validated as POSIX would, then applied to the visible state and
// logged. The path walk is sim_file_system_paths.cpp; durability (the log, fsync, power loss)
// and inspection are sim_file_system_crash.cpp.
#include "sim/disk/sim_file_system.hpp"

#include <algorithm>
#include <cerrno>
#include <utility>

namespace ckpt::sim {

namespace {

int errno_of(FaultKind kind) noexcept {
    return kind == FaultKind::eio ? EIO : ENOSPC;
}

}  // namespace

SimFileSystem::SimFileSystem() {
    reset();
}

void SimFileSystem::reset() {
    inodes_.clear();
    released_inodes_.clear();
    log_.clear();
    observer_ = nullptr;
    injector_ = nullptr;
    stats_ = FsStats{};
    forget_lookups();
    new_inode(EntryKind::directory);  // the root, kRoot
    all_reachable_ = true;
}

SimFileSystem::Lookup SimFileSystem::resolve(FsOp op, std::string_view path, bool follow_last,
                                             std::vector<InodeId>* ancestry) {
    Lookup found = lookup(FsView::visible, path, follow_last, ancestry);
    if (found.error != 0) {
        fail(op, path, found.error);
    }
    return found;
}

void SimFileSystem::fail(FsOp op, std::string_view path, int error_number) {
    throw FileSystemError(std::string(to_string(op)), std::string(path), error_number);
}

void SimFileSystem::observe(const FsOperation& operation) {
    if (observer_) {
        observer_(operation);
    }
}

Fault SimFileSystem::consult(const FsOperation& operation) {
    if (!injector_) {
        return {};
    }
    const Fault fault = injector_(operation);
    if (fault.kind != FaultKind::none) {
        ++stats_.faults_injected;
    }
    return fault;
}

void SimFileSystem::fail_on_fault(const Fault& fault, FsOp op, std::string_view path) {
    if (fault.kind != FaultKind::none) {
        fail(op, path, errno_of(fault.kind));
    }
}

SimFileSystem::InodeId SimFileSystem::new_inode(EntryKind kind) {
    if (!released_inodes_.empty()) {
        const InodeId id = released_inodes_.back();
        released_inodes_.pop_back();
        node(id) = Inode{};
        node(id).kind = kind;
        return id;
    }
    const auto id = static_cast<InodeId>(inodes_.size());
    inodes_.push_back(std::make_unique<Inode>());
    inodes_.back()->kind = kind;
    return id;
}

const SimFileSystem::Content& SimFileSystem::read_content(const std::string& path) {
    count(FsOp::read_file);
    const Lookup found = resolve(FsOp::read_file, path, true);
    if (found.inode == kNoInode) {
        fail(FsOp::read_file, path, ENOENT);
    }
    const Inode& file = node(found.inode);
    if (file.kind == EntryKind::directory) {
        fail(FsOp::read_file, path, EISDIR);
    }
    fail_on_fault(consult({FsOp::read_file, path, {}, 0}), FsOp::read_file, path);
    return file.visible_data;
}

std::string SimFileSystem::read_file(const std::string& path) {
    return string_of(read_content(path));
}

FileBytes SimFileSystem::read_bytes(const std::string& path) {
    const Content& content = read_content(path);
    return content ? *content : FileBytes();
}

void SimFileSystem::write_file(const std::string& path, std::string_view data) {
    write_bytes(path, FileBytes(data));
}

void SimFileSystem::write_bytes(const std::string& path, FileBytes data) {
    count(FsOp::write_file);
    const FsOperation operation{FsOp::write_file, path, {}, data.size()};
    observe(operation);
    const Lookup found = resolve(FsOp::write_file, path, true);
    if (found.parent == kNoInode ||
        (found.inode != kNoInode && node(found.inode).kind == EntryKind::directory)) {
        fail(FsOp::write_file, path, EISDIR);
    }
    const Fault fault = consult(operation);
    FileBytes written = std::move(data);
    if (fault.kind == FaultKind::short_write) {
        if (fault.short_write_bytes < written.size()) {
            written = FileBytes(written.prefix(fault.short_write_bytes));
        }
    } else if (fault.kind != FaultKind::none) {
        written = FileBytes();
    }
    InodeId file = found.inode;
    if (file == kNoInode) {
        file = new_inode(EntryKind::file);
        link_entry(found.parent, found.name, file);
    }
    // A new file starts empty in both views, so writing nothing to it needs no log record; an
    // existing file is truncated, which is a change a power loss may or may not keep.
    if (!written.empty() || found.inode != kNoInode) {
        const auto size = written.size();
        set_content(file, size == 0 ? nullptr : std::make_shared<const FileBytes>(std::move(written)));
        stats_.bytes_written += size;
    }
    fail_on_fault(fault, FsOp::write_file, path);
}

void SimFileSystem::fsync_file(const std::string& path) {
    count(FsOp::fsync_file);
    const FsOperation operation{FsOp::fsync_file, path, {}, 0};
    observe(operation);
    const Lookup found = resolve(FsOp::fsync_file, path, true);
    if (found.inode == kNoInode) {
        fail(FsOp::fsync_file, path, ENOENT);
    }
    // A failed fsync makes nothing durable. (Linux may also drop the dirty pages after an EIO,
    // so a retried fsync "succeeds" without them; that is not modelled.)
    fail_on_fault(consult(operation), FsOp::fsync_file, path);
    // fsync(2) on a directory descriptor syncs the directory; the port's caller may not know.
    if (node(found.inode).kind == EntryKind::directory) {
        commit_dir(found.inode);
    } else {
        commit_file(found.inode);
    }
}

void SimFileSystem::fsync_dir(const std::string& path) {
    count(FsOp::fsync_dir);
    const FsOperation operation{FsOp::fsync_dir, path, {}, 0};
    observe(operation);
    const Lookup found = resolve(FsOp::fsync_dir, path, true);
    if (found.inode == kNoInode) {
        fail(FsOp::fsync_dir, path, ENOENT);
    }
    if (node(found.inode).kind != EntryKind::directory) {
        fail(FsOp::fsync_dir, path, ENOTDIR);
    }
    fail_on_fault(consult(operation), FsOp::fsync_dir, path);
    commit_dir(found.inode);
}

void SimFileSystem::rename(const std::string& from, const std::string& to) {
    count(FsOp::rename);
    const FsOperation operation{FsOp::rename, from, to, 0};
    observe(operation);
    const Lookup source = resolve(FsOp::rename, from, false);
    if (source.inode == kNoInode) {
        fail(FsOp::rename, from, ENOENT);
    }
    std::vector<InodeId> destination_ancestry;
    const Lookup destination = resolve(FsOp::rename, to, false, &destination_ancestry);
    if (source.parent == kNoInode || destination.parent == kNoInode) {
        fail(FsOp::rename, source.parent == kNoInode ? from : to, EBUSY);
    }
    const bool moving_dir = node(source.inode).kind == EntryKind::directory;
    if (destination.inode != kNoInode && destination.inode != source.inode) {
        const Inode& replaced = node(destination.inode);
        const bool replacing_dir = replaced.kind == EntryKind::directory;
        if (moving_dir && !replacing_dir) {
            fail(FsOp::rename, to, ENOTDIR);
        }
        if (!moving_dir && replacing_dir) {
            fail(FsOp::rename, to, EISDIR);
        }
        if (replacing_dir && !replaced.visible_entries.empty()) {
            fail(FsOp::rename, to, ENOTEMPTY);
        }
    }
    if (moving_dir && std::find(destination_ancestry.begin(), destination_ancestry.end(), source.inode) !=
                          destination_ancestry.end()) {
        fail(FsOp::rename, to, EINVAL);  // a directory cannot move inside itself
    }
    fail_on_fault(consult(operation), FsOp::rename, from);
    if (destination.inode == source.inode) {
        return;  // rename(2) of a name onto the same file does nothing
    }
    node(source.parent).visible_entries.erase(node(source.parent).visible_entries.find(source.name));
    const bool added = node(destination.parent)
                           .visible_entries.insert_or_assign(std::string(destination.name), source.inode)
                           .second;
    entries_changed(source.parent, FsView::visible, false);
    entries_changed(destination.parent, FsView::visible, added);
    LogRecord record;
    record.kind = LogRecord::Kind::rename;
    record.dir = source.parent;
    record.dir2 = destination.parent;
    record.inode = source.inode;
    record.name = source.name;
    record.name2 = destination.name;
    log_.push_back(std::move(record));
}

void SimFileSystem::unlink(const std::string& path) {
    count(FsOp::unlink);
    const FsOperation operation{FsOp::unlink, path, {}, 0};
    observe(operation);
    const Lookup found = resolve(FsOp::unlink, path, false);
    if (found.inode == kNoInode) {
        fail(FsOp::unlink, path, ENOENT);
    }
    if (found.parent == kNoInode || node(found.inode).kind == EntryKind::directory) {
        fail(FsOp::unlink, path, EISDIR);  // Linux's answer to unlink(2) on a directory
    }
    fail_on_fault(consult(operation), FsOp::unlink, path);
    unlink_entry(found.parent, found.name);
}

void SimFileSystem::mkdir(const std::string& path) {
    count(FsOp::mkdir);
    const FsOperation operation{FsOp::mkdir, path, {}, 0};
    observe(operation);
    const Lookup found = resolve(FsOp::mkdir, path, false);
    if (found.inode != kNoInode) {
        // The port accepts an existing directory, also one reached through a link, like
        // os.makedirs(exist_ok=True) does.
        if (!is_dir_in(FsView::visible, path)) {
            fail(FsOp::mkdir, path, EEXIST);
        }
        fail_on_fault(consult(operation), FsOp::mkdir, path);
        return;
    }
    fail_on_fault(consult(operation), FsOp::mkdir, path);
    link_entry(found.parent, found.name, new_inode(EntryKind::directory));
}

void SimFileSystem::remove_tree(const std::string& path) {
    count(FsOp::remove_tree);
    observe({FsOp::remove_tree, path, {}, 0});
    const Lookup found = lookup(FsView::visible, path, false);
    if (found.error != 0 || found.inode == kNoInode) {
        return;
    }
    if (node(found.inode).kind != EntryKind::directory) {
        fail(FsOp::remove_tree, path, ENOTDIR);
    }
    if (found.parent == kNoInode) {
        fail(FsOp::remove_tree, path, EBUSY);  // the root, or a path ending in ".."
    }
    remove_children(found.inode, path);
    remove_entry(found.parent, std::string(found.name), found.inode, path);
}

void SimFileSystem::remove_children(InodeId dir, const std::string& dir_path) {
    // Re-read the first entry each round rather than iterating: every removal changes the map.
    while (!node(dir).visible_entries.empty()) {
        const auto first = node(dir).visible_entries.begin();
        const std::string name = first->first;
        const InodeId child = first->second;
        const std::string child_path = join_path(dir_path, name);
        if (node(child).kind == EntryKind::directory) {
            remove_children(child, child_path);
        }
        remove_entry(dir, name, child, child_path);
    }
}

void SimFileSystem::remove_entry(InodeId parent, const std::string& name, InodeId inode,
                                 const std::string& path) {
    const FsOp step = node(inode).kind == EntryKind::directory ? FsOp::rmdir : FsOp::unlink;
    count(step);
    const FsOperation operation{step, path, {}, 0};
    observe(operation);
    // Reported as remove_tree: that is the call the program made.
    fail_on_fault(consult(operation), FsOp::remove_tree, path);
    unlink_entry(parent, name);
}

std::vector<std::string> SimFileSystem::list_dir(const std::string& path) {
    count(FsOp::list_dir);
    const Lookup found = resolve(FsOp::list_dir, path, true);
    if (found.inode == kNoInode) {
        fail(FsOp::list_dir, path, ENOENT);
    }
    const Inode& dir = node(found.inode);
    if (dir.kind != EntryKind::directory) {
        fail(FsOp::list_dir, path, ENOTDIR);
    }
    fail_on_fault(consult({FsOp::list_dir, path, {}, 0}), FsOp::list_dir, path);
    // std::map orders std::string by char_traits<char>::lt, which compares as unsigned char:
    // ascending byte order, as the port promises.
    std::vector<std::string> names;
    names.reserve(dir.visible_entries.size());
    for (const auto& [name, inode] : dir.visible_entries) {
        names.push_back(name);
    }
    return names;
}

bool SimFileSystem::exists(const std::string& path) {
    count(FsOp::stat);
    return exists_in(FsView::visible, path);
}

bool SimFileSystem::is_dir(const std::string& path) {
    count(FsOp::stat);
    return is_dir_in(FsView::visible, path);
}

bool SimFileSystem::is_symlink(const std::string& path) {
    count(FsOp::stat);
    const Lookup found = lookup(FsView::visible, path, false);
    return found.error == 0 && found.inode != kNoInode && node(found.inode).kind == EntryKind::symlink;
}

void SimFileSystem::symlink(const std::string& target, const std::string& link_path) {
    count(FsOp::symlink);
    const FsOperation operation{FsOp::symlink, link_path, target, 0};
    observe(operation);
    if (target.empty()) {
        fail(FsOp::symlink, link_path, ENOENT);  // symlink(2) refuses an empty target
    }
    const Lookup found = resolve(FsOp::symlink, link_path, false);
    if (found.inode != kNoInode) {
        fail(FsOp::symlink, link_path, EEXIST);
    }
    fail_on_fault(consult(operation), FsOp::symlink, link_path);
    const InodeId link = new_inode(EntryKind::symlink);
    node(link).target = target;
    link_entry(found.parent, found.name, link);
}

std::string SimFileSystem::readlink(const std::string& path) {
    count(FsOp::readlink);
    const Lookup found = resolve(FsOp::readlink, path, false);
    if (found.inode == kNoInode) {
        fail(FsOp::readlink, path, ENOENT);
    }
    if (node(found.inode).kind != EntryKind::symlink) {
        fail(FsOp::readlink, path, EINVAL);
    }
    fail_on_fault(consult({FsOp::readlink, path, {}, 0}), FsOp::readlink, path);
    return node(found.inode).target;
}

}  // namespace ckpt::sim
