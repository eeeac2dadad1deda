// CheckpointRecord's slow reading: a trainer_state.json two nodes wrote at once, interleaved by
// a power loss. Compared offset by offset with both writes, joined, then scanned; reached only
// when the view holds neither whole write.
#include "sim/checks/ledger.hpp"

#include "sim/checks/disk_truth.hpp"  // trainer_state_names_step

namespace ckpt::sim {

bool CheckpointRecord::holds_node_writes_interleaved_in(const SimFileSystem& fs, FsView view,
                                                        std::string_view path) const {
    const auto bytes = fs.content_in(view, path);
    if (!bytes) {
        return false;
    }
    const std::string one = trainer_state_bytes.str();
    const std::string other = other_node_bytes.str();
    if (bytes->size() != one.size() && bytes->size() != other.size()) {
        return false;
    }
    for (std::size_t i = 0; i < bytes->size(); ++i) {
        const char c = (*bytes)[i];
        if (!(i < one.size() && one[i] == c) && !(i < other.size() && other[i] == c)) {
            return false;
        }
    }
    return trainer_state_names_step(*bytes, step);
}

}  // namespace ckpt::sim
