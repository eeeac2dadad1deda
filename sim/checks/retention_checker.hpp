// P1, the kept set: every final_checkpoint publication that returns leaves exactly the
// checkpoints the seed's link helper promises for the scenario's save_total_limit (of those
// older than the new target only the newest limit - 1 stay; the target and newer ones are never
// touched), restated here from a listing of the visible disk taken when the link was renamed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RetentionChecker {
  public:
    explicit RetentionChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan&) noexcept { publication_.reset(); }
    void on(const LinkPublished& e);
    void on(const IoErrorInjected&) noexcept { publication_.reset(); }  // the helper stops short
    void on(const SaveCallbackReturned&) { check_publication("on_save"); }
    void on(const TrainBegan&) { check_publication("on_train_begin"); }
    void on(const auto&) noexcept {}

  private:
    struct Publication {
        std::int64_t target = 0;
        std::vector<std::int64_t> before;  // checkpoint directories when the link was renamed
    };
    void check_publication(const char* where);

    const CheckerContext& context_;
    std::optional<Publication> publication_;
};

// The steps of the checkpoint-N directories directly under the output directory (reached through
// any link, as the trainer reaches it), ascending.
std::vector<std::int64_t> checkpoint_steps_in(const SimFileSystem& fs, FsView view);
std::vector<std::int64_t> visible_checkpoint_steps(const SimFileSystem& fs);
// N for a name "checkpoint-N" (decimal digits only), the checkers' own reading of the layout.
std::optional<std::int64_t> checkpoint_step_of(std::string_view name);

}  // namespace ckpt::sim
