// Running vectors and shrinking a divergence. A vector generated here keeps its inputs'
// meaning, so inputs can be dropped and the answers recomputed by the reference; a vector read
// from a file can only be cut to the prefix that ends at the first difference.
#include "sim/conformance/conformance_check.hpp"

#include <algorithm>
#include <sstream>

#include "sim/conformance/answer_match.hpp"
#include "sim/conformance/policy_process.hpp"
#include "sim/conformance/reference_answers.hpp"

namespace ckpt::sim::conformance {
namespace {

using nlohmann::json;

std::vector<std::string> full_command(const CheckOptions& options, const PolicySettings& settings) {
    auto argv = options.command;
    for (auto& flag : configuration_flags(settings)) {
        argv.push_back(std::move(flag));
    }
    return argv;
}

Divergence process_failure(const PolicySettings& settings, const std::vector<std::string>& inputs,
                           std::size_t at, std::string what) {
    Divergence d;
    d.settings = settings;
    d.inputs = inputs;
    d.at = at;
    d.what = std::move(what);
    d.process_failure = true;
    return d;
}

template <typename T>
std::vector<T> prefix(const std::vector<T>& items, std::size_t length) {
    return {items.begin(), items.begin() + static_cast<std::ptrdiff_t>(length)};
}

// Drops one input at a time while the shorter sequence still diverges (not by a process
// failure), recomputing the expected answers from the meaning, until no drop keeps it failing.
Divergence shrink_by_meaning(const CheckOptions& options, Divergence best, std::vector<PolicyInput> meaning) {
    meaning.resize(best.at + 1);
    for (bool progress = true; progress && meaning.size() > 1;) {
        progress = false;
        for (std::size_t drop = 0; drop < meaning.size(); ++drop) {
            auto candidate = meaning;
            candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(drop));
            const auto lines = input_lines(candidate);
            auto found =
                run_sequence(options, best.settings, lines, reference_answers(best.settings, candidate));
            if (found && !found->process_failure) {
                candidate.resize(found->at + 1);
                found->inputs.resize(found->at + 1);
                meaning = std::move(candidate);
                found->vector_id = best.vector_id;
                found->shrunk_from = best.shrunk_from;
                best = std::move(*found);
                progress = true;
                break;
            }
        }
    }
    return best;
}

Divergence shrink(const CheckOptions& options, const ConformanceVector& vector, Divergence found) {
    found.vector_id = vector.id;
    found.shrunk_from = vector.inputs.size();
    const auto length = found.at + 1;
    if (found.process_failure || length == vector.inputs.size()) {
        return vector.meaning.empty() || found.process_failure
                   ? found
                   : shrink_by_meaning(options, found, vector.meaning);
    }
    // The prefix that ends at the first difference has the same expected answers, cut short.
    auto cut = run_sequence(options, vector.settings, prefix(vector.inputs, length),
                            prefix(vector.expected, length));
    if (!cut || cut->process_failure) {
        return found;  // it needed the later inputs (or the pipe closing at their end) to show
    }
    cut->vector_id = vector.id;
    cut->shrunk_from = vector.inputs.size();
    return vector.meaning.empty() ? *cut : shrink_by_meaning(options, *cut, vector.meaning);
}

std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

}  // namespace

std::optional<Divergence> run_sequence(const CheckOptions& options, const PolicySettings& settings,
                                       const std::vector<std::string>& inputs,
                                       const std::vector<json>& expected) {
    const auto transcript =
        run_policy_process(full_command(options, settings), inputs, options.timeout, not_a_json_object);
    const auto ending = describe_ending(transcript, options.timeout);
    if (transcript.ending == Transcript::Ending::not_started) {
        auto d = process_failure(settings, inputs, 0, "the command " + ending);
        d.not_started = true;
        return d;
    }
    const auto& answers = transcript.answers;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (i >= answers.size()) {
            auto d = process_failure(settings, inputs, i,
                                     "no answer to input " + std::to_string(i + 1) + " of " +
                                         std::to_string(inputs.size()) + ": the implementation " + ending);
            d.expected = expected[i];
            if (!transcript.stderr_head.empty()) {
                auto head = transcript.stderr_head.substr(0, 300);
                std::replace(head.begin(), head.end(), '\n', ' ');
                d.what += "; its stderr began: " + head;
            }
            return d;
        }
        if (auto what = answer_difference(expected[i], answers[i]); !what.empty()) {
            Divergence d;
            d.settings = settings;
            d.inputs = inputs;
            d.at = i;
            d.process_failure = not_a_json_object(answers[i]);
            d.what =
                d.process_failure ? "answer " + std::to_string(i + 1) + " is not a JSON object line" : what;
            d.expected = expected[i];
            d.actual = answers[i].substr(0, 2000);
            return d;
        }
    }
    if (answers.size() > inputs.size()) {
        auto d = process_failure(settings, inputs, inputs.size() - 1,
                                 "more answer lines than inputs: the implementation " + ending);
        d.actual = answers[inputs.size()].substr(0, 2000);
        return d;
    }
    if (transcript.ending != Transcript::Ending::exited) {
        return process_failure(settings, inputs, inputs.size() - 1,
                               "every input was answered, but then the implementation " + ending);
    }
    return std::nullopt;
}

CheckResult check_vectors(const CheckOptions& options, const std::vector<ConformanceVector>& vectors) {
    CheckResult result;
    std::optional<Divergence> shortest;
    const ConformanceVector* shortest_vector = nullptr;
    for (const auto& vector : vectors) {
        ++result.vectors_run;
        auto found = run_sequence(options, vector.settings, vector.inputs, vector.expected);
        if (!found) {
            continue;
        }
        ++result.vectors_diverging;
        if (found->process_failure) {
            result.first = shrink(options, vector, std::move(*found));
            return result;
        }
        if (!shortest || found->at < shortest->at) {
            shortest = std::move(found);
            shortest_vector = &vector;
        }
    }
    if (shortest) {
        result.first = shrink(options, *shortest_vector, std::move(*shortest));
    }
    return result;
}

std::string format_divergence(const Divergence& d, const CheckOptions& options) {
    std::ostringstream out;
    const auto argv = full_command(options, d.settings);
    out << (d.process_failure ? "PROCESS FAILURE" : "DIVERGENCE") << " in vector " << d.vector_id << "\n";
    out << "  what: " << d.what << "\n  command:";
    for (const auto& arg : argv) {
        out << ' ' << shell_quote(arg);
    }
    out << "\n  input (" << d.inputs.size() << " line" << (d.inputs.size() == 1 ? "" : "s");
    if (d.shrunk_from > d.inputs.size()) {
        out << ", shrunk from " << d.shrunk_from;
    }
    out << "):\n";
    for (std::size_t i = 0; i < d.inputs.size(); ++i) {
        out << "    " << (i + 1) << "  " << d.inputs[i] << (i == d.at ? "    <-- here" : "") << "\n";
    }
    if (d.expected) {
        out << "  expected: " << d.expected->dump() << "\n";
    }
    if (d.actual) {
        out << "  got:      " << *d.actual << "\n";
    }
    out << "  reproduce: printf '%s\\n'";
    for (const auto& line : d.inputs) {
        out << ' ' << shell_quote(line);
    }
    out << " |";
    for (const auto& arg : argv) {
        out << ' ' << shell_quote(arg);
    }
    out << "\n";
    return out.str();
}

}  // namespace ckpt::sim::conformance
