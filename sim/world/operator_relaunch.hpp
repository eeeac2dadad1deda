// What an operator does when a job ends before it trained to its end for a reason that is not a
// bug of the code under test: the remedy the failure's own message, or Transformers' documented
// workaround, names, applied to the output directory or to the launch, before the job is
// launched again with the same fault plan. A scenario that failed its resume then still tests the
// rest of the run. Depends on the scenario vocabulary and the simulated disk only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/base/enum_names.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

enum class Remedy : std::uint8_t {
    kill_hung_job,                 // no watchdog: the operator sees the job hang and kills every rank
    delete_incomplete_checkpoint,  // get_last_checkpoint picked one without trainer_state.json (#35782)
    delete_unloadable_checkpoint,  // the resume's weights or a damaged callback state do not load: it goes
    launch_without_resume,         // resume_from_checkpoint=True found no checkpoint: launch without it
    delete_damaged_sidecar,        // the callback cannot parse its sidecar: the operator deletes it
    resume_with_saved_settings,    // the callback refused a changed configuration: undo the change
};
inline constexpr auto kRemedyNames = make_enum_names<Remedy>({
    {Remedy::kill_hung_job, "kill_hung_job"},
    {Remedy::delete_incomplete_checkpoint, "delete_incomplete_checkpoint"},
    {Remedy::delete_unloadable_checkpoint, "delete_unloadable_checkpoint"},
    {Remedy::launch_without_resume, "launch_without_resume"},
    {Remedy::delete_damaged_sidecar, "delete_damaged_sidecar"},
    {Remedy::resume_with_saved_settings, "resume_with_saved_settings"},
});
static_assert(kRemedyNames.complete());

// Relaunches an operator tries before giving the job up: each failure is remedied once or twice,
// and a scenario whose every restart fails the same way still ends.
inline constexpr int kMaxRelaunches = 4;

// The first path under the output directory that `message` names, as an operator reads it off a
// traceback; empty when it names none.
std::string path_named_in(std::string_view message);

// Applies `remedy` between incarnations: `path` is the file or directory a deleting remedy
// removes, always under the output directory; `failure` is the error that ended the job (a
// refusal of a changed configuration names the callback whose change is undone). Touches nothing
// else of the disk, and of the launch only the setting the remedy names. False when there is
// nothing to apply (the job then ends).
bool apply_remedy(Remedy remedy, const std::string& path, std::string_view failure, SimFileSystem& fs,
                  Scenario& launch);

}  // namespace ckpt::sim
