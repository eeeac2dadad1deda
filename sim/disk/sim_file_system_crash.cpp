// The durability half of SimFileSystem: the log of un-synced operations, what fsync commits,
// what a power loss keeps and damage at rest (the read-only views oracles inspect are in
// sim_file_system_views.cpp). Every durable change comes from replaying a log record (or a
// whole-file commit), never from the visible state.
#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "sim/base/assert.hpp"
#include "sim/base/enum_names.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

namespace {

// What a torn power loss does to one un-synced file write, each equally likely.
enum class WriteFate : std::uint8_t { lost, kept, torn };

// A write that reached the disk in part. Either the size was updated only as far as the pages
// that landed (the new bytes cut short), or the size was updated but only the leading pages
// landed, so the rest still holds the old bytes (zeros past the old end, as a fresh block reads).
std::shared_ptr<const FileBytes> tear(std::string_view old_bytes, std::string_view new_bytes, Rng& rng) {
    if (new_bytes.empty()) {
        return nullptr;
    }
    const std::size_t cut = rng.uniform<std::size_t>(0, new_bytes.size() - 1);
    std::string torn(new_bytes.substr(0, cut));
    if (rng.chance(1, 2)) {
        torn.reserve(new_bytes.size());
        for (std::size_t i = cut; i < new_bytes.size(); ++i) {
            torn.push_back(i < old_bytes.size() ? old_bytes[i] : '\0');
        }
    }
    return torn.empty() ? nullptr : std::make_shared<const FileBytes>(std::move(torn));
}

// Damage as a failing disk or a stray writer leaves it: a truncation, a few flipped bytes, or,
// for an empty file, a few bytes of garbage.
std::shared_ptr<const FileBytes> damage(std::string_view bytes, Rng& rng, std::string& description) {
    std::string damaged(bytes);
    if (damaged.empty()) {
        const auto length = rng.uniform<std::size_t>(1, 8);
        for (std::size_t i = 0; i < length; ++i) {
            damaged.push_back(static_cast<char>(rng.uniform<int>(0, 255)));
        }
        description = "garbage 0 -> " + std::to_string(length) + " bytes";
    } else if (rng.chance(1, 2)) {
        damaged.resize(rng.uniform<std::size_t>(0, damaged.size() - 1));
        description =
            "truncate " + std::to_string(bytes.size()) + " -> " + std::to_string(damaged.size()) + " bytes";
    } else {
        const auto flips = rng.uniform<std::size_t>(1, std::min<std::size_t>(3, damaged.size()));
        for (std::size_t i = 0; i < flips; ++i) {
            const auto at = static_cast<std::size_t>(rng.below(damaged.size()));
            damaged[at] =
                static_cast<char>(static_cast<unsigned char>(damaged[at]) ^ rng.uniform<unsigned>(1, 255));
        }
        description = "flip " + std::to_string(flips) + " byte(s) of " + std::to_string(bytes.size());
    }
    return damaged.empty() ? nullptr : std::make_shared<const FileBytes>(std::move(damaged));
}

// Marks the inodes some view can still reach: what a walk of both views' entries finds from the
// root and from every inode a pending link or rename names (a power loss can only bring back what
// those records link). An inode left unmarked can never be seen again. Deduced types: the inode
// and record types are private.
template <class Inodes, class Log, class Id>
std::vector<char> mark_reachable(const Inodes& inodes, const Log& log, Id root, Id none) {
    using Kind = typename Log::value_type::Kind;
    std::vector<char> alive(inodes.size(), 0);
    // Marked when first pushed, so each inode is pushed once and the stack never outgrows this.
    std::vector<Id> walk;
    walk.reserve(inodes.size());
    auto reach = [&](Id id) {
        if (alive[id] == 0) {
            alive[id] = 1;
            walk.push_back(id);
        }
    };
    reach(root);
    for (const auto& record : log) {
        if (record.kind == Kind::link || record.kind == Kind::rename) {
            for (const Id id : {record.inode, record.dir, record.dir2}) {
                if (id != none) {
                    reach(id);
                }
            }
        }
    }
    while (!walk.empty()) {
        const auto& inode = *inodes[walk.back()];
        walk.pop_back();
        for (const auto* children : {&inode.visible_entries, &inode.durable_entries}) {
            for (const auto& [name, child] : *children) {
                reach(child);
            }
        }
    }
    return alive;
}

// Drops the un-synced unlink and data records of inodes no view can ever reach again: an unlink
// inside a removed directory, or a write to a removed file, changes nothing any later view can
// show. Without this, every rotated checkpoint left its unlinks in the log for good, and each
// fsync scanned them all again.
template <class Log>
void drop_unreachable_records(Log& log, const std::vector<char>& alive) {
    using Kind = typename Log::value_type::Kind;
    std::erase_if(log, [&](const auto& record) {
        return (record.kind == Kind::unlink && alive[record.dir] == 0) ||
               (record.kind == Kind::data && alive[record.inode] == 0);
    });
}

}  // namespace

void SimFileSystem::link_entry(InodeId dir, std::string_view name, InodeId inode) {
    CKPT_ASSERT(node(dir).kind == EntryKind::directory);
    const bool added = node(dir).visible_entries.insert_or_assign(std::string(name), inode).second;
    entries_changed(dir, FsView::visible, added);
    LogRecord record;
    record.kind = LogRecord::Kind::link;
    record.dir = dir;
    record.inode = inode;
    record.name = name;
    log_.push_back(std::move(record));
}

void SimFileSystem::unlink_entry(InodeId dir, std::string_view name) {
    Entries& visible = node(dir).visible_entries;
    const auto entry = visible.find(name);
    CKPT_ASSERT(entry != visible.end());  // callers unlink only what their lookup found
    visible.erase(entry);
    entries_changed(dir, FsView::visible, false);
    LogRecord record;
    record.kind = LogRecord::Kind::unlink;
    record.dir = dir;
    record.name = name;
    log_.push_back(std::move(record));
}

void SimFileSystem::set_content(InodeId file, Content data) {
    CKPT_ASSERT(node(file).kind == EntryKind::file);
    node(file).visible_data = data;
    LogRecord record;
    record.kind = LogRecord::Kind::data;
    record.inode = file;
    record.data = std::move(data);
    log_.push_back(std::move(record));
}

void SimFileSystem::apply_durably(const LogRecord& record) {
    // Entry records change directories and data records change files, in both states alike.
    CKPT_ASSERT(record.kind == LogRecord::Kind::data ? node(record.inode).kind == EntryKind::file
                                                     : node(record.dir).kind == EntryKind::directory);
    switch (record.kind) {
        case LogRecord::Kind::link: {
            const bool added =
                node(record.dir).durable_entries.insert_or_assign(record.name, record.inode).second;
            entries_changed(record.dir, FsView::durable, added);
            break;
        }
        case LogRecord::Kind::unlink:
            node(record.dir).durable_entries.erase(record.name);
            entries_changed(record.dir, FsView::durable, false);
            break;
        case LogRecord::Kind::rename: {
            // Both halves in one step: a journal commits a rename as one transaction, so no
            // crash shows the entry under both names or under neither.
            node(record.dir).durable_entries.erase(record.name);
            const bool added =
                node(record.dir2).durable_entries.insert_or_assign(record.name2, record.inode).second;
            entries_changed(record.dir, FsView::durable, false);
            entries_changed(record.dir2, FsView::durable, added);
            break;
        }
        case LogRecord::Kind::data:
            node(record.inode).durable_data = record.data;
            break;
    }
}

void SimFileSystem::commit_file(InodeId file) {
    Inode& inode = node(file);
    inode.durable_data = inode.visible_data;
    std::erase_if(log_, [file](const LogRecord& record) {
        return record.kind == LogRecord::Kind::data && record.inode == file;
    });
}

void SimFileSystem::commit_dir(InodeId dir) {
    // Walk the log backwards from the newest record. A record that touches a directory already
    // being committed is committed too, and brings its other directory along, so everything
    // earlier in that directory commits with it. That keeps each directory's durable entries
    // the result of a prefix of its own history, which a later prefix replay relies on.
    std::vector<InodeId> committing{dir};
    std::vector<bool> commit(log_.size(), false);
    for (std::size_t i = log_.size(); i-- > 0;) {
        const LogRecord& record = log_[i];
        const bool hit = std::any_of(committing.begin(), committing.end(),
                                     [&record](InodeId d) { return record.touches_dir(d); });
        if (!hit) {
            continue;
        }
        commit[i] = true;
        for (const InodeId touched : {record.dir, record.dir2}) {
            if (touched != kNoInode &&
                std::find(committing.begin(), committing.end(), touched) == committing.end()) {
                committing.push_back(touched);
            }
        }
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < log_.size(); ++i) {
        if (commit[i]) {
            apply_durably(log_[i]);
        } else {
            if (kept != i) {
                log_[kept] = std::move(log_[i]);
            }
            ++kept;
        }
    }
    log_.resize(kept);
    if (all_reachable_ && reachability_shortcut_) {
        return;  // no inode can have become unreachable: the mark would drop and release nothing
    }
    const auto alive = mark_reachable(inodes_, log_, kRoot, kNoInode);
    drop_unreachable_records(log_, alive);
    release_unreachable(alive);
    all_reachable_ = true;
}

// After drop_unreachable_records no record and no reachable entry names an unmarked inode, so
// its bytes are freed and its id reused: a long run's disk then costs what it holds, not every
// file it ever wrote.
void SimFileSystem::release_unreachable(const std::vector<char>& alive) {
    for (InodeId id = 0; id < alive.size(); ++id) {
        if (alive[id] == 0 && !node(id).released) {
            node(id) = Inode{};
            node(id).released = true;
            released_inodes_.push_back(id);
            forget_lookups();
        }
    }
}

void SimFileSystem::sync_all() {
    for (const LogRecord& record : log_) {
        apply_durably(record);
    }
    log_.clear();
    all_reachable_ = false;  // the pending links that kept an inode reachable are gone
}

PowerLossReport SimFileSystem::power_loss(PowerLossMode mode, Rng& rng) {
    ++stats_.power_losses;
    PowerLossReport report;
    report.pending = log_.size();
    if (mode == PowerLossMode::prefix) {
        report.kept = rng.uniform<std::size_t>(0, log_.size());
        for (std::size_t i = 0; i < report.kept; ++i) {
            apply_durably(log_[i]);
        }
    } else if (mode == PowerLossMode::torn) {
        const auto directory_records =
            static_cast<std::size_t>(std::count_if(log_.begin(), log_.end(), [](const LogRecord& record) {
                return record.kind != LogRecord::Kind::data;
            }));
        const std::size_t directory_kept = rng.uniform<std::size_t>(0, directory_records);
        std::size_t directory_seen = 0;
        for (const LogRecord& record : log_) {
            if (record.kind != LogRecord::Kind::data) {
                if (directory_seen++ < directory_kept) {
                    apply_durably(record);
                    ++report.kept;
                }
                continue;
            }
            switch (static_cast<WriteFate>(rng.below(enumerator_count<WriteFate>()))) {
                case WriteFate::lost:
                    break;
                case WriteFate::kept:
                    apply_durably(record);
                    ++report.kept;
                    break;
                case WriteFate::torn: {
                    Inode& file = node(record.inode);
                    file.durable_data = tear(string_of(file.durable_data), string_of(record.data), rng);
                    ++report.torn;
                    break;
                }
            }
        }
    }
    CKPT_ASSERT(report.kept + report.torn <= report.pending);
    log_.clear();
    adopt_durable_state();
    return report;
}

void SimFileSystem::adopt_durable_state() {
    forget_lookups();
    all_reachable_ = false;
    for (const auto& inode : inodes_) {
        inode->visible_data = inode->durable_data;
        inode->visible_entries = inode->durable_entries;
    }
}

std::string SimFileSystem::corrupt_at_rest(const std::string& path, Rng& rng) {
    static constexpr const char* kOperation = "corrupt_at_rest";
    const Lookup found = lookup(FsView::visible, path, true);
    if (found.error != 0 || found.inode == kNoInode) {
        throw FileSystemError(kOperation, path, found.error != 0 ? found.error : ENOENT);
    }
    Inode& file = node(found.inode);
    if (file.kind == EntryKind::directory) {
        throw FileSystemError(kOperation, path, EISDIR);
    }
    ++stats_.corruptions;
    std::string description;
    const bool clean = same_content(file.visible_data, file.durable_data);
    Content damaged = damage(string_of(file.visible_data), rng, description);
    if (clean) {
        file.durable_data = damaged;
    } else {
        // A dirty page cache and the disk hold different bytes; both are hit, each its own way.
        std::string ignored;
        file.durable_data = damage(string_of(file.durable_data), rng, ignored);
    }
    file.visible_data = std::move(damaged);
    return "corrupt " + path + ": " + description;
}

// New names come only from pending links and renames; every other entry a later view can show is
// already in the visible or durable entries of a directory some view can reach.
bool SimFileSystem::entry_may_exist(std::string_view name) const {
    for (const LogRecord& record : log_) {
        if ((record.kind == LogRecord::Kind::link && record.name == name) ||
            (record.kind == LogRecord::Kind::rename && record.name2 == name)) {
            return true;
        }
    }
    // When every inode not released is reachable, those are the mark's.
    const bool shortcut = all_reachable_ && reachability_shortcut_;
    const auto alive = shortcut ? std::vector<char>() : mark_reachable(inodes_, log_, kRoot, kNoInode);
    for (InodeId id = 0; id < inodes_.size(); ++id) {
        const Inode& inode = node(id);
        const bool reachable = shortcut ? !inode.released : alive[id] != 0;
        if (reachable && (inode.visible_entries.contains(name) || inode.durable_entries.contains(name))) {
            return true;
        }
    }
    return false;
}

}  // namespace ckpt::sim
