// The serve loop of one call, and the simulator's answers to the process's requests.
#include "sim/external/callback_session.hpp"

#include <cerrno>

#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/ports/file_system_error.hpp"
#include "policy/ports/rank_zero_outcome.hpp"
#include "policy/trigger/rank_zero_operations.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "sim/base/harness_error.hpp"
#include "sim/external/byte_string.hpp"

namespace ckpt::sim {

using nlohmann::json;

CallbackSession::CallbackSession(const CallbackSpec& spec, const CallbackIdentity& identity,
                                 SimFileSystem& fs, const VirtualClock& clock)
    : process_(spec, identity), fs_(fs), clock_(clock), lookahead_(spec.lookahead) {
    class_name_ = process_.ready()["class"].get<std::string>();
}

// The id of the call the trainer makes now: the next call run ahead, which it must be, or a call
// sent now (with its own calls ahead, if any).
std::int64_t CallbackSession::start_call(const char* fn, json& fields, std::vector<json> ahead) {
    if (!ahead_.empty()) {
        auto expected = std::move(ahead_.front());
        ahead_.pop_front();
        if (expected.fn != fn || expected.fields != fields) {
            process_.fail("was run ahead of the trainer with " + expected.fn + " " + expected.fields.dump() +
                          ", but the trainer called " + fn + " " + fields.dump() +
                          " (ckptsim's own error: the trainer left the path it announced)");
        }
        return expected.id;
    }
    const auto id = ++next_id_;
    for (auto& entry : ahead) {
        ahead_.push_back({fn, entry, ++next_id_});
    }
    json message = fields;
    message["t"] = "call";
    message["id"] = id;
    message["fn"] = fn;
    message["now_ms"] = clock_.now_ms();
    if (!ahead.empty()) {
        message["ahead"] = std::move(ahead);
    }
    process_.send(message);
    return id;
}

json CallbackSession::call(const char* fn, json fields, SimCollective& collective,
                           EvaluationRoundObserver* observer, std::vector<json> ahead) {
    bool ended = false;
    try {
        const auto id = start_call(fn, fields, std::move(ahead));
        while (true) {
            auto message = process_.receive();
            const auto& type = message["t"].get_ref<const std::string&>();
            if (type == "fs") {
                process_.send(answer_fs(message));
            } else if (type == "clock") {
                process_.send({{"t", "ok"},
                               {"id", message.value("id", json())},
                               {"value", clock_.now_ms()},
                               {"now_ms", clock_.now_ms()}});
            } else if (type == "coll") {
                process_.send(answer_collective(message, collective));
            } else if (type == "note") {
                take_note(message, collective, observer);
            } else if (type == "return" || type == "raise") {
                if (message.value("id", json()) != json(id)) {
                    process_.fail("ended call " + message.value("id", json()).dump() + " while call " +
                                  std::to_string(id) + " was running");
                }
                ended = true;
                // The process runs no further ahead after a call that raised or changed its control.
                if (type == "raise" || message.value("control", json()) != fields.value("control", json())) {
                    ahead_.clear();
                }
                if (type == "raise") {
                    raise(message);
                }
                if (const auto state = message.find("policy_state");
                    state != message.end() && !state->is_null()) {
                    reported_state_ = state_in(message, "policy_state");
                }
                return message;
            } else if (type == "harness_error") {
                process_.fail("reported that the callback left the simulated surface: " +
                              message.value("message", std::string("(no message)")) + "\n" +
                              message.value("traceback", std::string()));
            } else {
                process_.fail("sent a message of unknown type \"" + type + "\"");
            }
        }
    } catch (...) {
        if (!ended) {
            ahead_.clear();
            process_.kill();  // a crash or a death: the call is never answered, no finally runs
        }
        throw;
    }
}

const std::string& CallbackSession::string_in(const json& message, const char* field) {
    const auto found = message.find(field);
    if (found == message.end() || !found->is_string()) {
        process_.fail(std::string("sent a \"") + message["t"].get<std::string>() + "\" without a string \"" +
                      field + "\"");
    }
    return found->get_ref<const std::string&>();
}

json CallbackSession::answer_fs(const json& request) {
    const auto& op = string_in(request, "op");
    json answer = {
        {"t", "ok"}, {"id", request.value("id", json())}, {"value", nullptr}, {"now_ms", clock_.now_ms()}};
    const auto path = [&](const char* field = "path") {
        const auto& value = string_in(request, field);
        if (!value.starts_with('/')) {
            process_.fail("asked for " + op + " on a relative path \"" + value + "\"");
        }
        return value;
    };
    try {
        if (op == "stat") {
            const auto target = path();
            const bool follow = request.value("follow", true);
            if (const auto link = follow ? std::nullopt : fs_.link_target_in(FsView::visible, target)) {
                answer["value"] = {{"kind", "symlink"}, {"size", link->size()}};
            } else if (fs_.is_dir_in(FsView::visible, target)) {
                answer["value"] = {{"kind", "dir"}, {"size", 0}};
            } else if (const auto content = fs_.content_in(FsView::visible, target)) {
                answer["value"] = {{"kind", "file"}, {"size", content->size()}};
            } else {
                throw FileSystemError("stat", target, ENOENT);
            }
        } else if (op == "read_file") {
            answer["value"] = {{"data", bytes_to_code_points(fs_.read_file(path()))}};
        } else if (op == "write_file") {
            fs_.write_file(path(), code_points_to_bytes(string_in(request, "data")));
        } else if (op == "fsync_file") {
            fs_.fsync_file(path());
        } else if (op == "fsync_dir") {
            fs_.fsync_dir(path());
        } else if (op == "unlink") {
            fs_.unlink(path());
        } else if (op == "mkdir") {
            // os.mkdir refuses an existing entry; the port's mkdir is idempotent.
            const auto target = path();
            if (fs_.exists_in(FsView::visible, target) || fs_.link_target_in(FsView::visible, target)) {
                throw FileSystemError("mkdir", target, EEXIST);
            }
            fs_.mkdir(target);
        } else if (op == "remove_tree") {
            fs_.remove_tree(path());
        } else if (op == "rename") {
            fs_.rename(path("from"), path("to"));
        } else if (op == "symlink") {
            fs_.symlink(string_in(request, "target"), path());
        } else if (op == "readlink") {
            answer["value"] = fs_.readlink(path());
        } else if (op == "list_dir") {
            answer["value"] = fs_.list_dir(path());
        } else {
            process_.fail("asked for an unknown file operation \"" + op + "\"");
        }
    } catch (const FileSystemError& error) {
        answer = {{"t", "err"},
                  {"id", request.value("id", json())},
                  {"errno", error.error_number()},
                  {"message", error.what()},
                  {"now_ms", clock_.now_ms()}};
    }
    return answer;
}

json CallbackSession::answer_collective(const json& request, SimCollective& collective) {
    const auto& op = string_in(request, "op");
    json value;
    if (op == "barrier") {
        collective.barrier();
    } else if (op == "broadcast") {
        const auto src = request.value("src", -1);
        if (src < 0 || src >= collective.world_size()) {
            process_.fail("asked for a broadcast from rank " + std::to_string(src) + " in a world of " +
                          std::to_string(collective.world_size()));
        }
        // The process gets its own copy of the shared tree, as it would over the channel.
        value = *collective.broadcast(request.value("value", json()), src);
    } else {
        process_.fail("asked for an unknown collective \"" + op + "\"");
    }
    return {{"t", "ok"},
            {"id", request.value("id", json())},
            {"value", std::move(value)},
            {"now_ms", clock_.now_ms()}};
}

CheckpointEvaluationState CallbackSession::state_in(const json& message, const char* field) {
    const auto found = message.find(field);
    if (found == message.end() || !found->is_object()) {
        process_.fail(std::string("sent no policy state object in \"") + field + "\"");
    }
    try {
        CheckpointEvaluationState state;
        const auto& s = *found;
        if (s.contains("best_score") && !s["best_score"].is_null()) {
            state.best_score = s["best_score"].get<double>();
        }
        if (s.contains("best_step") && !s["best_step"].is_null()) {
            state.best_step = s["best_step"].get<std::int64_t>();
        }
        state.lower_score_streak = s.value("lower_score_streak", std::int64_t{0});
        state.evaluation_count = s.value("evaluation_count", std::int64_t{0});
        state.stop_requested = s.value("stop_requested", false);
        state.best_is_external = s.value("best_is_external", false);
        return state;
    } catch (const json::exception& error) {
        process_.fail(std::string("sent a malformed policy state in \"") + field + "\": " + error.what());
    }
}

void CallbackSession::take_note(const json& note, SimCollective& collective,
                                EvaluationRoundObserver* observer) {
    const auto& name = string_in(note, "name");
    if (name == "log") {
        return;
    }
    if (name == "waiting_point") {
        const char* label = interned(string_in(note, "operation"));
        if (observer != nullptr) {
            observer->before_rank_zero_outcome(label);
        } else {
            collective.set_waiting_point(label);
        }
        return;
    }
    if (observer == nullptr) {
        process_.fail("sent the note \"" + name + "\" outside an evaluation round");
    }
    if (name == "decision") {
        CheckpointEvaluationDecision decision;
        try {
            decision = CheckpointEvaluationDecision::from_dict(note.value("decision", json()));
        } catch (const ValueError& error) {
            process_.fail(std::string("sent a malformed decision: ") + error.what());
        }
        observer->on_decision(state_in(note, "prior"), decision, state_in(note, "after"));
    } else if (name == "rank_state") {
        observer->on_rank_state(state_in(note, "state"));
    } else if (name == "stop_in_force") {
        observer->on_stop_in_force();
    } else if (name == "after_recorded") {
        observer->after_recorded(CheckpointEvaluationDecision{});
    } else if (name == "after_persist") {
        observer->after_persist(state_in(note, "state"));
    } else {
        process_.fail("sent an unknown note \"" + name + "\"");
    }
}

void CallbackSession::raise(const json& message) {
    const auto kind = message.value("kind", std::string("other"));
    const auto text = message.value("message", std::string());
    if (kind == "training_args_refused") {
        throw TrainingArgumentsRefused(text);
    }
    if (kind == "sidecar_restore") {
        throw RankZeroFailure(kSidecarRestoreOperation, text);
    }
    if (kind == "value_error") {
        throw ValueError(text);
    }
    throw ExternalCallbackError(message.value("type", std::string("Exception")) + ": " + text);
}

}  // namespace ckpt::sim
