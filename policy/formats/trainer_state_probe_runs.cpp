// probe_global_step over runs. A run of kRememberedRunBytes or more whose bytes are a list of
// array elements (each saved log_history grows the same buffer) is replaced by the placeholder
// "{}" and the rest scanned once: when the scan meets the placeholder exactly where an array
// element may start, the document with the run in its place scans to the same state after it,
// since the run starts and ends on bytes that end no token before them and start none after them
// ('{', '[', '"' and '}', ']', '"'), and what lies inside an array cannot name the top-level
// global_step. Every other case joins the runs and scans them whole.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "policy/formats/recent_probe_results.hpp"
#include "policy/formats/trainer_state_probe.hpp"

namespace ckpt {
namespace {

using probe_detail::scan_trainer_state;

constexpr std::string_view kPlaceholder = "{}";
// Shorter runs are scanned in place: remembering them saves less than it costs.
constexpr std::size_t kRememberedRunBytes = 256;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Whether `body`, with whitespace around, is one or more array elements separated by commas.
bool is_element_list(std::string_view body) {
    if (body.find_first_not_of(" \t\n\r") == std::string_view::npos) {
        return false;
    }
    std::string wrapped = "{\"e\":[";
    wrapped.append(body).append("]}");
    return scan_trainer_state(wrapped, std::string_view::npos).valid_object;
}

// Whether the run's first and last bytes other than whitespace delimit themselves.
bool has_delimited_ends(std::string_view bytes) {
    const auto first = bytes.find_first_not_of(" \t\n\r");
    const auto last = bytes.find_last_not_of(" \t\n\r");
    if (first == std::string_view::npos) {
        return false;
    }
    const char begin = bytes[first];
    const char end = bytes[last];
    return (begin == '{' || begin == '[' || begin == '"') && (end == '}' || end == ']' || end == '"');
}

// What this thread's probes learnt of a few shared buffers: the first `validated` bytes of each
// are an element list. A buffer's bytes below a run's length never change (FileBytes), so a
// longer run of the same buffer needs only its new bytes checked. Entries hold the buffer weakly:
// a freed buffer's entry never matches a live one.
class ElementLists {
  public:
    bool holds(const FileBytes::Run& run) {
        const std::string_view bytes = run.view();
        if (!has_delimited_ends(bytes)) {
            return false;
        }
        Entry* entry = find(run.buffer);
        if (entry == nullptr || entry->validated > run.length) {
            if (!is_element_list(bytes)) {
                return false;
            }
            if (entry == nullptr) {
                entry = evict();
                entry->buffer = run.buffer;
            }
            entry->validated = run.length;
            entry->used = ++clock_;
            return true;
        }
        std::string_view added = bytes.substr(entry->validated);
        while (!added.empty() && is_space(added.front())) {
            added.remove_prefix(1);
        }
        if (!added.empty() && (added.front() != ',' || !is_element_list(added.substr(1)))) {
            return false;
        }
        entry->validated = run.length;
        entry->used = ++clock_;
        return true;
    }

  private:
    struct Entry {
        std::weak_ptr<const std::string> buffer;
        std::size_t validated = 0;
        std::uint64_t used = 0;  // 0: empty
    };

    Entry* find(const std::shared_ptr<const std::string>& buffer) {
        for (auto& entry : entries_) {
            if (entry.used != 0 && !entry.buffer.owner_before(buffer) && !buffer.owner_before(entry.buffer)) {
                return &entry;
            }
        }
        return nullptr;
    }

    Entry* evict() {
        Entry* oldest = &entries_[0];
        for (auto& entry : entries_) {
            if (entry.used < oldest->used) {
                oldest = &entry;
            }
        }
        return oldest;
    }

    std::array<Entry, 4> entries_{};
    std::uint64_t clock_ = 0;
};

}  // namespace

std::optional<std::int64_t> probe_global_step(const FileBytes& trainer_state_json) {
    if (trainer_state_json.run_count() <= 1) {
        return probe_global_step(trainer_state_json.empty() ? std::string_view()
                                                            : trainer_state_json.begin()->view());
    }
    thread_local ElementLists element_lists;
    std::string skeleton;
    std::size_t placeholder = std::string::npos;
    for (const auto& run : trainer_state_json) {
        if (placeholder == std::string::npos && run.length >= kRememberedRunBytes &&
            element_lists.holds(run)) {
            placeholder = skeleton.size();
            skeleton.append(kPlaceholder);
        } else {
            skeleton.append(run.view());
        }
    }
    if (placeholder != std::string::npos) {
        // A file is probed again at recovery, adoption and resume, and the same skeleton with the
        // placeholder at the same offset scans the same: remembered on both.
        thread_local RecentProbeResults<probe_detail::ScanOutcome> recent;
        const auto text_size = skeleton.size();
        skeleton.append(reinterpret_cast<const char*>(&placeholder), sizeof placeholder);
        auto outcome = recent.find(skeleton);
        if (!outcome) {
            outcome = scan_trainer_state(std::string_view(skeleton).substr(0, text_size), placeholder);
            recent.remember(skeleton, *outcome);
        }
        if (outcome->array_element_at_watched) {
            return outcome->valid_object ? outcome->step : std::nullopt;
        }
    }
    return probe_global_step(trainer_state_json.str());
}

}  // namespace ckpt
