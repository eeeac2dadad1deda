// SimFileSystem: the FileSystem port over an in-memory, crash-consistent disk. It guarantees the
// crash model of DESIGN.md (volatile and durable state, an un-synced log replayable in any prefix)
// and gives oracles read-only views of both states. Depends on policy/ports and sim/base only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_system.hpp"
#include "sim/base/enum_names.hpp"
#include "sim/base/rng.hpp"
#include "sim/disk/disk_faults.hpp"

namespace ckpt::sim {

// The operations the simulator can watch, fail or crash at. `stat` stands for exists, is_dir and
// is_symlink, which are only counted: the port gives them no way to report an error.
enum class FsOp : std::uint8_t {
    read_file,
    write_file,
    fsync_file,
    fsync_dir,
    rename,
    unlink,
    mkdir,
    rmdir,  // one directory removed inside remove_tree
    remove_tree,
    list_dir,
    symlink,
    readlink,
    stat,
};
inline constexpr auto kFsOpNames = make_enum_names<FsOp>({
    {FsOp::read_file, "read_file"},
    {FsOp::write_file, "write_file"},
    {FsOp::fsync_file, "fsync_file"},
    {FsOp::fsync_dir, "fsync_dir"},
    {FsOp::rename, "rename"},
    {FsOp::unlink, "unlink"},
    {FsOp::mkdir, "mkdir"},
    {FsOp::rmdir, "rmdir"},
    {FsOp::remove_tree, "remove_tree"},
    {FsOp::list_dir, "list_dir"},
    {FsOp::symlink, "symlink"},
    {FsOp::readlink, "readlink"},
    {FsOp::stat, "stat"},
});
static_assert(kFsOpNames.complete());
inline constexpr std::size_t kFsOpCount = kFsOpNames.size();

constexpr std::string_view to_string(FsOp op) noexcept {
    return kFsOpNames.name(op);
}

// What the hooks are told about a call. The views are valid only during the hook call.
struct FsOperation {
    FsOp op;
    std::string_view path;   // rename: the source; symlink: the link's path
    std::string_view other;  // rename: the destination; symlink: the target text; else empty
    std::size_t size = 0;    // write_file: the bytes the caller asked to write
};

struct PowerLossReport {
    std::size_t pending = 0;  // un-synced operations when the power went out
    std::size_t kept = 0;     // of those, applied whole to the durable state
    std::size_t torn = 0;     // of those, file writes applied in part (torn mode only)
};

// The two states an oracle can look at: what processes see now, and what a power loss that
// kept no un-synced operation would leave.
enum class FsView : std::uint8_t { visible, durable };

enum class EntryKind : std::uint8_t { file, directory, symlink };

// One entry of a recursive listing. `data` is a file's content or a symlink's target text.
struct FsEntry {
    std::string path;
    EntryKind kind = EntryKind::file;
    std::string data;

    bool operator==(const FsEntry&) const = default;
};

struct FsStats {
    std::array<std::uint64_t, kFsOpCount> operations{};  // calls by kind, including failed ones
    std::uint64_t faults_injected = 0;
    std::uint64_t bytes_written = 0;
    std::uint64_t power_losses = 0;
    std::uint64_t process_kills = 0;
    std::uint64_t corruptions = 0;

    std::uint64_t count(FsOp op) const noexcept { return operations[static_cast<std::size_t>(op)]; }
    std::uint64_t fsyncs() const noexcept { return count(FsOp::fsync_file) + count(FsOp::fsync_dir); }
    // Moves whenever the view may have changed: the visible one through every mutating call, the
    // durable one through the fsyncs, both through power losses and damage. Reads and stats move
    // neither, so an oracle re-reads a view at a crash point only when this moved.
    std::uint64_t changes_to(FsView view) const noexcept {
        std::uint64_t changes = power_losses + corruptions;
        if (view == FsView::durable) {
            return changes + fsyncs();
        }
        for (const auto op : {FsOp::write_file, FsOp::rename, FsOp::unlink, FsOp::mkdir, FsOp::rmdir,
                              FsOp::remove_tree, FsOp::symlink}) {
            changes += count(op);
        }
        return changes;
    }
};

// An in-memory file system with the crash model of DESIGN.md, behind the same FileSystem port
// the production code uses.
//
// Every file keeps volatile bytes (the page cache, what reads see) and durable bytes (what a
// power loss leaves). Every directory keeps volatile and durable entries the same way. Every
// change is appended to a log of un-synced operations, recorded against inodes rather than
// paths, so that any prefix of the log can be replayed onto the durable state after later
// renames have moved things around. fsync_file makes one file's writes durable; fsync_dir makes
// the directory's entry changes durable, together with every earlier un-synced change to the
// directories those changes touch, since a journal commits them in order.
//
// Paths are '/'-separated; relative paths start at the root (the simulated working directory).
// "." and ".." are honoured, and symlinks in the middle of a path are always followed.
//
// Not thread-safe, not even the const inspection calls, which update a memo of recent lookups:
// the simulator runs one rank at a time.
class SimFileSystem final : public ckpt::FileSystem {
  public:
    // Called before every mutating operation (including each removal inside remove_tree), before
    // any validation or change. The simulator crashes a process there by throwing; the state is
    // then exactly as before the call.
    using Observer = std::function<void(const FsOperation&)>;
    // Consulted once per call that passed validation (it would have reached the disk), reads
    // included, after the observer and before any change; for remove_tree, once per step.
    // Not consulted for exists, is_dir and is_symlink.
    using FaultInjector = std::function<Fault(const FsOperation&)>;

    SimFileSystem();

    std::string read_file(const std::string& path) override;
    // The file's runs as they were written, shared rather than joined.
    FileBytes read_bytes(const std::string& path) override;
    void write_file(const std::string& path, std::string_view data) override;
    // write_file of `data`'s bytes, keeping its runs: a file that shares a buffer with others
    // costs the runs, not a copy. Observed, fault-checked and logged exactly as write_file.
    void write_bytes(const std::string& path, FileBytes data);
    void fsync_file(const std::string& path) override;
    void fsync_dir(const std::string& path) override;
    void rename(const std::string& from, const std::string& to) override;
    void unlink(const std::string& path) override;
    void mkdir(const std::string& path) override;
    // As PosixFileSystem: a missing path is no error, a path that is not a directory (a symlink
    // included) is ENOTDIR, and links inside the tree are removed, never followed. The removal
    // is a sequence of unlink and rmdir steps, children before parents in ascending name order,
    // each one observed, fault-checked and logged on its own, so a crash can land mid-tree.
    void remove_tree(const std::string& path) override;
    std::vector<std::string> list_dir(const std::string& path) override;
    bool exists(const std::string& path) override;
    bool is_dir(const std::string& path) override;
    bool is_symlink(const std::string& path) override;
    void symlink(const std::string& target, const std::string& link_path) override;
    std::string readlink(const std::string& path) override;

    // Off: every lookup walks the path, as if remembered_ did not exist. Only for the differential
    // test (sim_file_system_memo_differential_test.cpp), which holds the memo to the plain walk; the
    // simulator leaves it on. Survives reset, like the memo itself.
    void set_lookup_memo(bool on) noexcept {
        lookup_memo_ = on;
        forget_lookups();
    }
    // Off: every directory fsync marks what the views can reach, as if all_reachable_ did not
    // exist. Only for the differential test (sim_file_system_memo_differential_test.cpp), which
    // holds the shortcut to the full mark; the simulator leaves it on. Survives reset.
    void set_reachability_shortcut(bool on) noexcept { reachability_shortcut_ = on; }
    // Inodes in use (not released): for the tests that compare what two disks freed.
    std::size_t inodes_held() const noexcept { return inodes_.size() - released_inodes_.size(); }
    void set_observer(Observer observer) { observer_ = std::move(observer); }
    void set_fault_injector(FaultInjector injector) { injector_ = std::move(injector); }

    // A killed process loses nothing the kernel holds; only the count changes.
    void process_kill() noexcept { ++stats_.process_kills; }
    // The machine loses power: the durable state, plus what `mode` keeps of the un-synced
    // operations, becomes the visible state, and the log is emptied.
    PowerLossReport power_loss(PowerLossMode mode, Rng& rng);
    // sync(2): every un-synced operation becomes durable. Used to lay down a starting state.
    void sync_all();
    // Damages a regular file's bytes on disk and in the page cache (truncation, flipped bytes, or
    // garbage in an empty file), following symlinks. Returns a description for the trace. Not
    // observed or fault-checked: it is the simulator's doing, not the program's. An un-synced
    // write of the file that a later power loss keeps lands over the damage.
    std::string corrupt_at_rest(const std::string& path, Rng& rng);
    // Back to a fresh empty file system: state, log, counters and hooks.
    void reset();

    // Inspection for oracles and tests. None of these is counted, observed or fault-checked.
    bool exists_in(FsView view, std::string_view path) const;
    bool is_dir_in(FsView view, std::string_view path) const;
    std::optional<std::string> content_in(FsView view, std::string_view path) const;
    std::optional<std::string> link_target_in(FsView view, std::string_view path) const;
    // Whether `path` is a regular file holding exactly `expected`, without copying it: oracles
    // compare what the disk holds with what was written at every crash point.
    bool content_equals(FsView view, std::string_view path, std::string_view expected) const;
    // The same for bytes held as runs: runs over the same buffers are equal without reading them.
    bool content_equals(FsView view, std::string_view path, const FileBytes& expected) const;
    // The bytes a regular file of the view holds, shared rather than copied; null when it is
    // absent, not a regular file, or empty.
    std::shared_ptr<const FileBytes> shared_content_in(FsView view, std::string_view path) const;
    // The names in directory `path` of the view (links followed, as is_dir_in does), ascending;
    // empty when it is not a directory. Oracles list one directory at every crash point, so this
    // builds no paths: the views are valid until the file system next changes.
    std::vector<std::string_view> entry_names_in(FsView view, std::string_view path) const;
    bool durably_exists(std::string_view path) const { return exists_in(FsView::durable, path); }
    std::optional<std::string> durable_content(std::string_view path) const {
        return content_in(FsView::durable, path);
    }
    // Whether an entry called `name` is in some directory of either view, or could be after any
    // power loss (a pending link or rename makes it). False means no view ever shows one again
    // unless the program creates it anew: the ledger may then forget what it knew of it.
    bool entry_may_exist(std::string_view name) const;
    // Every entry reachable from the root without following links, as absolute paths ("/a/b")
    // in depth-first ascending name order.
    std::vector<FsEntry> snapshot(FsView view = FsView::visible) const;
    std::vector<std::string> list_recursive(FsView view = FsView::visible) const;
    // Un-synced operations in the log; zero means a power loss cannot change anything.
    std::size_t pending_operations() const noexcept { return log_.size(); }
    const FsStats& stats() const noexcept { return stats_; }

  private:
    using InodeId = std::uint32_t;
    using Content = std::shared_ptr<const FileBytes>;  // shared by the views and the log
    static std::string string_of(const Content& content) { return content ? content->str() : std::string(); }
    static bool same_content(const Content& a, const Content& b) noexcept {
        return a == b || (a ? a->equals(b ? *b : FileBytes()) : !b || b->empty());
    }
    using Entries = std::map<std::string, InodeId, std::less<>>;

    static constexpr InodeId kNoInode = UINT32_MAX;
    static constexpr InodeId kRoot = 0;

    struct Inode {
        EntryKind kind = EntryKind::file;
        Content visible_data;  // files; null means empty
        Content durable_data;
        std::string target;       // symlinks; never changes once created
        Entries visible_entries;  // directories
        Entries durable_entries;
        // By view, the change clock's readings when those entries last gained a name, and last
        // lost one or had one re-pointed (see remembered_).
        std::array<std::uint64_t, 2> name_added_at{};
        std::array<std::uint64_t, 2> name_dropped_at{};
        bool released = false;  // unreachable from every view: free for new_inode to reuse
    };

    // One un-synced change, replayable onto the durable state in any later situation.
    struct LogRecord {
        enum class Kind : std::uint8_t { link, unlink, rename, data };
        Kind kind = Kind::data;
        InodeId dir = kNoInode;    // link, unlink, rename: the (source) directory
        InodeId dir2 = kNoInode;   // rename: the destination directory
        InodeId inode = kNoInode;  // link, rename: the entry; data: the file
        std::string name;
        std::string name2;  // rename: the destination name
        Content data;

        bool touches_dir(InodeId d) const noexcept {
            return kind != Kind::data && (dir == d || (kind == Kind::rename && dir2 == d));
        }
    };

    // The result of walking a path. `error` is an errno for a failure before the last component;
    // otherwise `inode` is the entry (kNoInode when absent) named `name` inside `parent`. A path
    // that names a directory without naming an entry ("/", "a/..") has parent kNoInode.
    struct Lookup {
        int error = 0;
        InodeId parent = kNoInode;
        std::string_view name;
        InodeId inode = kNoInode;
    };

    // A lookup the walk made, kept for the next lookup of the same path in the same view. Its
    // result depends only on the entries of the directories it searched (inode kinds and link
    // targets never change while an inode is reachable): a search that found its name holds
    // until that directory loses or re-points a name, the one search that may have missed (the
    // last) also until it gains one; and none holds once an inode is released. `name` is kept as
    // an offset when it lies in the path (it is then re-pointed into the caller's text) and as
    // the view itself when it lies in a link target.
    static constexpr std::size_t kMaxSearched = 8;  // deeper walks are not remembered
    struct RememberedLookup {
        std::string path;
        FsView view = FsView::visible;
        bool follow_last = false;
        bool name_in_path = false;
        std::uint8_t searched_count = 0;
        std::uint64_t made_at = 0;  // the change clock's reading; 0 never counts
        std::size_t name_offset = 0;
        Lookup result;
        std::array<InodeId, kMaxSearched> searched{};
    };
    static constexpr unsigned kRememberedLookupBits = 7;
    static constexpr std::size_t kRememberedLookups = std::size_t{1} << kRememberedLookupBits;

    // The directories a walk searched, in order; `overflow` when more than kMaxSearched.
    struct Searched {
        std::array<InodeId, kMaxSearched> dirs{};
        std::uint8_t count = 0;
        bool overflow = false;
    };

    // Resolves `path` in `view`; `ancestry`, when given, receives the directories from the root to
    // the result's parent. Answers from remembered_ when it can, with the walk's very result.
    Lookup lookup(FsView view, std::string_view path, bool follow_last,
                  std::vector<InodeId>* ancestry = nullptr) const;
    // lookup without ancestry. `slot` receives the index of the remembered lookup that now holds
    // the result, or kRememberedLookups when the walk was too deep to remember.
    Lookup recall(FsView view, std::string_view path, bool follow_last, std::size_t& slot) const;
    // A path whose last component is a plain name, resolved as its directory's recalled lookup
    // and one search more. False (and nothing set) when that would not be the walk's result.
    bool extend_parent(FsView view, std::string_view path, bool follow_last, Lookup& out,
                       Searched& searched) const;
    Lookup walk(FsView view, std::string_view path, bool follow_last, std::vector<InodeId>* ancestry,
                Searched* searched) const;
    bool still_holds(const RememberedLookup& remembered) const noexcept;
    // Every change to a directory's entries in a view goes through here. `added`: only a new name
    // appeared, which no search that found its name can notice.
    void entries_changed(InodeId dir, FsView view, bool added) noexcept {
        auto& stamps = added ? node(dir).name_added_at : node(dir).name_dropped_at;
        stamps[static_cast<std::size_t>(view)] = ++change_clock_;
        all_reachable_ = all_reachable_ && added;  // a name dropped or replaced may strand an inode
    }
    // Voids every remembered lookup: for changes that are not one directory's entries (inodes
    // released, the visible state replaced, a reset).
    void forget_lookups() noexcept { forget_before_ = ++change_clock_; }
    // lookup for a port call: a walk failure becomes the FileSystemError of that call.
    Lookup resolve(FsOp op, std::string_view path, bool follow_last,
                   std::vector<InodeId>* ancestry = nullptr);

    // read_file and read_bytes up to the bytes: counted, resolved, refused for a directory and
    // fault-checked.
    const Content& read_content(const std::string& path);
    // The content of the regular file `path` names in `view` (links followed); null when there is
    // none. The pointee itself is null for an empty file.
    const Content* file_content_in(FsView view, std::string_view path) const;

    const Inode& node(InodeId id) const { return *inodes_[id]; }
    Inode& node(InodeId id) { return *inodes_[id]; }
    static const Entries& entries(const Inode& inode, FsView view) {
        return view == FsView::visible ? inode.visible_entries : inode.durable_entries;
    }

    void count(FsOp op) noexcept { ++stats_.operations[static_cast<std::size_t>(op)]; }
    void observe(const FsOperation& operation);
    Fault consult(const FsOperation& operation);
    [[noreturn]] static void fail(FsOp op, std::string_view path, int error_number);
    void fail_on_fault(const Fault& fault, FsOp op, std::string_view path);

    InodeId new_inode(EntryKind kind);
    void link_entry(InodeId dir, std::string_view name, InodeId inode);
    void unlink_entry(InodeId dir, std::string_view name);
    void set_content(InodeId file, Content data);
    void remove_children(InodeId dir, const std::string& dir_path);
    void remove_entry(InodeId parent, const std::string& name, InodeId inode, const std::string& path);

    void commit_file(InodeId file);
    void commit_dir(InodeId dir);
    void apply_durably(const LogRecord& record);
    void adopt_durable_state();
    void release_unreachable(const std::vector<char>& alive);

    // Indexed by id. Each inode lives in its own allocation, so a Lookup's name may be a view into a
    // symlink target while new_inode grows the table (write_file through a dangling link does).
    std::vector<std::unique_ptr<Inode>> inodes_;
    std::vector<InodeId> released_inodes_;  // ids release_unreachable freed, reused first
    std::vector<LogRecord> log_;
    // Oracles resolve the same few paths at every crash point, and most changes in between touch
    // other directories; remembering walks spares re-searching the same maps.
    mutable std::array<RememberedLookup, kRememberedLookups> remembered_;
    std::uint64_t change_clock_ = 0;
    std::uint64_t forget_before_ = 1;  // remembered lookups made before this reading are void
    bool lookup_memo_ = true;          // see set_lookup_memo
    // Every inode not released is reachable (mark_reachable would mark exactly those): true after a
    // reset and after release_unreachable, until a directory drops or replaces a name
    // (entries_changed), a power loss replaces the visible state, or sync_all empties the log. New
    // inodes are linked at once into a directory the visible walk reached, and a directory fsync
    // without a rename commits only its own (reachable) directory's records, so neither strands one.
    bool all_reachable_ = true;
    bool reachability_shortcut_ = true;  // see set_reachability_shortcut
    Observer observer_;
    FaultInjector injector_;
    FsStats stats_;
};

}  // namespace ckpt::sim
