// The hand-written state_dict layout. Its compact form equals nlohmann's dump() of state_dict(),
// and the indented forms equal Python's json.dump; the tests compare both byte for byte.
#include "policy/formats/state_json_text.hpp"

#include "policy/python/python_values.hpp"

namespace ckpt {
namespace {

// Writes members of sorted-key objects in Python's json.dump layout. `depth` counts the
// object's nesting; indent 0 gives the compact ", " / ": " separators json.dumps uses... except
// that nlohmann's compact form has no spaces, and the compact form here follows nlohmann's dump()
// (",", ":") so that state_dict_text(policy) == policy.state_dict().dump().
class Writer {
  public:
    explicit Writer(int indent, int depth = 0) : indent_(indent), depth_(depth) {
        out_.reserve(indent > 0 ? 420 : 230);
    }

    void open() {
        out_ += '{';
        ++depth_;
        first_ = true;
    }
    void close() {
        --depth_;
        if (indent_ > 0) {
            newline();
        }
        out_ += '}';
        first_ = false;
    }
    void key(const char* name) {
        if (!first_) {
            out_ += ',';
        }
        first_ = false;
        if (indent_ > 0) {
            newline();
        }
        out_ += '"';
        out_ += name;
        out_ += indent_ > 0 ? "\": " : "\":";
    }
    void raw(const std::string& text) { out_ += text; }
    void raw(const char* text) { out_ += text; }
    void integer(std::int64_t value) { out_ += std::to_string(value); }
    void boolean(bool value) { out_ += value ? "true" : "false"; }
    std::string take() { return std::move(out_); }

  private:
    void newline() {
        out_ += '\n';
        out_.append(static_cast<std::size_t>(indent_ * depth_), ' ');
    }

    int indent_;
    int depth_;
    bool first_ = true;
    std::string out_;
};

void write_state_dict(Writer& w, const CheckpointEvaluationPolicy& policy) {
    const auto& settings = policy.settings();
    const auto& s = policy.state();
    w.open();
    w.key("patience");
    w.integer(settings.patience);
    w.key("patience_start_step");
    w.integer(settings.patience_start_step);
    w.key("state");
    w.open();
    w.key("best_is_external");
    w.boolean(s.best_is_external);
    w.key("best_score");
    w.raw(s.best_score ? python::float_repr(*s.best_score) : std::string("null"));
    w.key("best_step");
    w.raw(s.best_step ? std::to_string(*s.best_step) : std::string("null"));
    w.key("evaluation_count");
    w.integer(s.evaluation_count);
    w.key("lower_score_streak");
    w.integer(s.lower_score_streak);
    w.key("stop_requested");
    w.boolean(s.stop_requested);
    w.close();
    w.key("tie_policy");
    w.raw("\"");
    w.raw(std::string(to_string(settings.tie_policy)));
    w.raw("\"");
    w.key("version");
    w.integer(CheckpointEvaluationPolicy::kStateVersion);
    w.close();
}

}  // namespace

std::string state_dict_text(const CheckpointEvaluationPolicy& policy, int indent) {
    return state_dict_text_at_depth(policy, indent, 0);
}

std::string state_dict_text_at_depth(const CheckpointEvaluationPolicy& policy, int indent, int depth) {
    Writer w(indent, depth);
    write_state_dict(w, policy);
    return w.take();
}

}  // namespace ckpt
