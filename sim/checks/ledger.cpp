// CheckpointRecord's slow reading: a trainer_state.json two nodes wrote at once, interleaved by
// a power loss. Compared offset by offset with both writes, joined, then scanned; reached only
// when the view holds neither whole write.
#include "sim/checks/ledger.hpp"

#include "sim/checks/disk_truth.hpp"  // trainer_state_names_step

namespace ckpt::sim {

bool CheckpointRecord::holds_node_writes_interleaved_in(const SimFileSystem& fs, FsView view,
                                                        std::string_view path) const {
    const auto held = fs.shared_content_in(view, path);
    if (!held || (held->size() != trainer_state_bytes.size() && held->size() != other_node_bytes.size())) {
        return false;
    }
    const std::string text = held->str();
    const std::string one = trainer_state_bytes.str();
    const std::string other = other_node_bytes.str();
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!(i < one.size() && one[i] == c) && !(i < other.size() && other[i] == c)) {
            return false;
        }
    }
    return trainer_state_names_step(text, step);
}

}  // namespace ckpt::sim
