#pragma once

// Where a restarted job resumes from, over the FileSystem port: Transformers' rule (the newest
// checkpoint-N, complete or not) and the fixed rule (the newest complete one that still holds
// its model weights, after which the newer ones are removed). The resume_trusts_incomplete mutant is checked
// here and nowhere else. Depends on checkpoint_layout and the ports only.

#include <optional>
#include <string>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

enum class ResumeSourceRule {
    newest_directory,  // Transformers' get_last_checkpoint
    newest_complete,   // the fixed rule: complete and holding model weights
};

// What a resume reports while it runs, so a caller can trace and check each step in order.
class ResumeObserver {
  public:
    virtual ~ResumeObserver() = default;
    // The checkpoint the rule picked, before anything is removed. Returning false abandons the
    // resume: nothing is removed and no checkpoint is returned.
    virtual bool on_chosen(const CheckpointEntry& source) = 0;
    // Called right after each newer checkpoint is removed, before the next one.
    virtual void on_removed(const CheckpointEntry& removed) = 0;
};

// Picks the checkpoint to resume from under `rule`. Under the fixed rule it also removes every
// checkpoint newer than the pick (all of them when there is none) and then fsyncs output_dir:
// Transformers' rotation sorts by step number, so a stale checkpoint-60 left by a crash would
// make it delete the fresh checkpoint-50 just written. Nothing when training starts from scratch.
std::optional<CheckpointEntry> resume_from_checkpoint(FileSystem& fs, const std::string& output_dir,
                                                      ResumeSourceRule rule, ResumeObserver& observer);

// The pick alone, with no removal and no mutant: what a rule would choose in output_dir now.
std::optional<CheckpointEntry> pick_resume_checkpoint(FileSystem& fs, const std::string& output_dir,
                                                      ResumeSourceRule rule);

}  // namespace ckpt
