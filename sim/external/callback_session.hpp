// One rank's external callback process and the simulator's side of its conversation: a call is
// sent, then every request it makes is answered on this rank's fiber (files from SimFileSystem
// through the same port, crash points and faults as the C++ port's; collectives through the
// rank's SimCollective), every note is handed to the round's observer, until the call returns
// or raises. A raise becomes the typed exception the trainer classifies; anything that leaves
// the call unanswered (a crash, a rank death, a harness error) kills the process first.
//
// Calls run ahead: a call may carry the calls the trainer will make next if this one hands its
// control back unchanged (`ahead`, protocol 2). The process runs them at once, so their answers
// wait in the channel; each later call the trainer makes takes the next one, served exactly as
// a call sent then would be (its requests answered at that moment, its clock read from the
// simulator then). The trainer must make exactly those calls: any other call while some are
// ahead is a harness error, never a silent mismatch. After a call that raises or changes its
// control, both sides drop the rest.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"
#include "policy/trigger/evaluation_round.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/virtual_clock.hpp"
#include "sim/external/callback_process.hpp"
#include "sim/ranks/sim_collective.hpp"

namespace ckpt::sim {

// An exception the external callback raised that the trainer has no type for; the message
// names the Python type ("KeyError: 'x'").
class ExternalCallbackError : public RuntimeError {
  public:
    using RuntimeError::RuntimeError;
};

class CallbackSession {
  public:
    CallbackSession(const CallbackSpec& spec, const CallbackIdentity& identity, SimFileSystem& fs,
                    const VirtualClock& clock);

    // Sends {"t":"call","fn":fn, ...fields} and serves the process until it ends the call.
    // Returns the `return` message. `observer` receives the round's notes (null outside a round).
    // `ahead`: the fields of the calls of `fn` that follow if this one leaves its control as it
    // was (only when no call is ahead already).
    nlohmann::json call(const char* fn, nlohmann::json fields, SimCollective& collective,
                        EvaluationRoundObserver* observer = nullptr, std::vector<nlohmann::json> ahead = {});
    bool has_calls_ahead() const noexcept { return !ahead_.empty(); }
    std::size_t lookahead() const noexcept { return lookahead_; }

    const std::string& class_name() const noexcept { return class_name_; }
    const nlohmann::json& ready() const noexcept { return process_.ready(); }
    // The policy state the binding last reported (trace only).
    const CheckpointEvaluationState& reported_state() const noexcept { return reported_state_; }
    void shutdown() noexcept { process_.shutdown(); }

  private:
    std::int64_t start_call(const char* fn, nlohmann::json& fields, std::vector<nlohmann::json> ahead);
    nlohmann::json answer_fs(const nlohmann::json& request);
    nlohmann::json answer_collective(const nlohmann::json& request, SimCollective& collective);
    void take_note(const nlohmann::json& note, SimCollective& collective, EvaluationRoundObserver* observer);
    [[noreturn]] void raise(const nlohmann::json& message);
    CheckpointEvaluationState state_in(const nlohmann::json& message, const char* field);
    const std::string& string_in(const nlohmann::json& message, const char* field);
    const char* interned(const std::string& label) { return labels_.insert(label).first->c_str(); }

    CallbackProcess process_;
    SimFileSystem& fs_;
    const VirtualClock& clock_;
    std::string class_name_;
    std::int64_t next_id_ = 0;
    // The calls the process has run ahead, in order: the next call's fn and fields, id following.
    struct CallAhead {
        std::string fn;
        nlohmann::json fields;
        std::int64_t id = 0;
    };
    std::deque<CallAhead> ahead_;
    std::size_t lookahead_;
    CheckpointEvaluationState reported_state_;
    std::set<std::string> labels_;  // waiting points: SimCollective keeps the pointer
};

}  // namespace ckpt::sim
