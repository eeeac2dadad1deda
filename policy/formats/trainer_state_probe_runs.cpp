// The probes over a whole document, given as one text or as runs. A run of kRememberedRunBytes or
// more whose bytes are a list of array elements (each saved log_history grows the same buffer) is
// replaced by the placeholder "{}" and the rest scanned once: when the scan meets the placeholder
// exactly where an array element may start, the document with the run in its place scans to the
// same state after it, since the run starts and ends on bytes that end no token before them and
// start none after them ('{', '[', '"' and '}', ']', '"'), and what lies inside an array cannot
// name a top-level member or a callback's entry in one. Every other case joins the runs and scans
// them whole.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// The scan of a document held as runs, with the text its offsets refer to: the skeleton, when a
// remembered run stood in it as the placeholder and the scan met that placeholder where an array
// element starts. Nothing otherwise: the caller scans the joined runs.
struct SkeletonScan {
    probe_detail::ScanOutcome outcome;
    std::string skeleton;
    std::size_t placeholder = 0;
};
std::optional<SkeletonScan> scan_skeleton(const FileBytes& document) {
    thread_local ElementLists element_lists;
    SkeletonScan scan;
    auto& skeleton = scan.skeleton;
    std::size_t placeholder = std::string::npos;
    for (const auto& run : document) {
        if (placeholder == std::string::npos && run.length >= kRememberedRunBytes &&
            element_lists.holds(run)) {
            placeholder = skeleton.size();
            skeleton.append(kPlaceholder);
        } else {
            skeleton.append(run.view());
        }
    }
    if (placeholder == std::string::npos) {
        return std::nullopt;
    }
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
    skeleton.resize(text_size);
    if (!outcome->array_element_at_watched) {
        return std::nullopt;
    }
    scan.outcome = *outcome;
    scan.placeholder = placeholder;
    return scan;
}

// The trigger callback's entry in a scanned text, as probe_trigger_callback_entry answers.
std::optional<std::string> trigger_entry_text(const probe_detail::ScanOutcome& outcome,
                                              std::string_view text) {
    if (!outcome.valid_object || !outcome.trigger_callback.found()) {
        return std::nullopt;
    }
    return std::string(text.substr(outcome.trigger_callback.at, outcome.trigger_callback.length));
}

}  // namespace

std::optional<std::int64_t> probe_global_step(std::string_view trainer_state_json) {
    // The same checkpoint is probed again at recovery, adoption and resume, usually with bytes
    // unchanged since its commit; identical bytes give the identical answer.
    thread_local RecentProbeResults<std::optional<std::int64_t>> recent;
    if (const auto known = recent.find(trainer_state_json)) {
        return *known;
    }
    const auto outcome = scan_trainer_state(trainer_state_json, std::string_view::npos);
    const auto step = outcome.valid_object ? outcome.step : std::nullopt;
    recent.remember(trainer_state_json, step);
    return step;
}

std::optional<std::int64_t> probe_global_step(const FileBytes& trainer_state_json) {
    if (trainer_state_json.run_count() <= 1) {
        return probe_global_step(trainer_state_json.empty() ? std::string_view()
                                                            : trainer_state_json.begin()->view());
    }
    if (const auto scan = scan_skeleton(trainer_state_json)) {
        return scan->outcome.valid_object ? scan->outcome.step : std::nullopt;
    }
    return probe_global_step(trainer_state_json.str());
}

std::optional<std::string> probe_trigger_callback_entry(const FileBytes& trainer_state_json) {
    std::string joined;
    std::string_view text;
    if (trainer_state_json.run_count() > 1) {
        if (const auto scan = scan_skeleton(trainer_state_json)) {
            // The entry's text is the skeleton's unless the placeholder stands inside it.
            const auto& entry = scan->outcome.trigger_callback;
            if (!entry.found() || scan->placeholder < entry.at ||
                entry.at + entry.length <= scan->placeholder) {
                return trigger_entry_text(scan->outcome, scan->skeleton);
            }
        }
        joined = trainer_state_json.str();
        text = joined;
    } else if (!trainer_state_json.empty()) {
        text = trainer_state_json.begin()->view();
    }
    return trigger_entry_text(scan_trainer_state(text, std::string_view::npos), text);
}

}  // namespace ckpt
