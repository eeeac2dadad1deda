// libFuzzer target: one `ckptsim policy` request line, after a fixed warm-up so that load and
// observe meet a policy with history. The answer must be a JSON object that dumps (with invalid
// UTF-8 replaced, as the command prints it); answer_policy_line itself must never throw.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "sim/cli/policy_protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ckpt;
    auto policy = CheckpointEvaluationPolicy::from_loose_settings(2, "reset", 0);
    bool any_input_error = false;
    (void)cli::answer_policy_line(policy, R"({"observe": {"score": 0.5, "step": 10}})", 1, false,
                                  any_input_error);
    const std::string line(fuzz::as_text(data, size).substr(0, cli::kMaxLineBytes));
    const auto answer = cli::answer_policy_line(policy, line, 2, false, any_input_error);
    if (!answer.is_object()) {
        __builtin_trap();
    }
    (void)answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
}
