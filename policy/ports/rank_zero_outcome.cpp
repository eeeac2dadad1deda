// The outcome envelope and its error text, with the Python type name the seed would report.
// The rank0_raise_before_broadcast mutant rethrows on rank zero before the broadcast.
#include "policy/ports/rank_zero_outcome.hpp"

#include <string>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/ports/file_system_error.hpp"

namespace ckpt {
namespace {

// The Python class name the seed would report, so messages read the same in both.
const char* python_type_name(const std::exception& error) {
    if (dynamic_cast<const ValueError*>(&error) != nullptr) {
        return "ValueError";
    }
    if (dynamic_cast<const FileSystemError*>(&error) != nullptr) {
        return "OSError";
    }
    return "RuntimeError";
}

}  // namespace

SharedJson run_on_rank_zero_and_share_outcome(Collective& collective, bool is_rank_zero,
                                              std::string_view operation,
                                              const std::function<nlohmann::json()>& action) {
    nlohmann::json outcome;  // null on the other ranks: they receive rank 0's
    if (is_rank_zero) {
        try {
            outcome = action();
            outcome["ok"] = true;
        } catch (const std::exception& error) {
            if (mutants::is_active(mutants::Mutant::rank0_raise_before_broadcast)) {
                throw;
            }
            outcome = {{"ok", false}, {"error_type", python_type_name(error)}, {"error", error.what()}};
        }
    }
    auto shared = collective.broadcast(std::move(outcome), 0);
    static const nlohmann::json kNothingReceived;  // a collective that returned no value: invalid below
    const nlohmann::json& received = shared != nullptr ? *shared : kNothingReceived;
    const auto ok = received.is_object() ? received.find("ok") : received.end();
    if (!received.is_object() || ok == received.end() || !ok->is_boolean()) {
        throw RuntimeError("checkpoint evaluation " + std::string(operation) +
                           " did not receive a valid rank-zero outcome");
    }
    if (!ok->get<bool>()) {
        const auto type = received.value("error_type", std::string("RuntimeError"));
        const auto detail = received.value("error", std::string("unknown error"));
        throw RankZeroFailure(std::string(operation), "checkpoint evaluation " + std::string(operation) +
                                                          " failed on global rank zero (" + type +
                                                          "): " + detail);
    }
    return shared;
}

}  // namespace ckpt
