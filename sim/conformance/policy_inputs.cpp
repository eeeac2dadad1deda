// The request lines of the protocol, built from each input's literal parts.
#include "sim/conformance/policy_inputs.hpp"

namespace ckpt::sim::conformance {

using nlohmann::json;

std::string input_line(const PolicyInput& input) {
    struct Line {
        std::string operator()(const ObserveInput& in) const {
            return json{{"observe", {{"score", in.score.literal}, {"step", in.step.literal}}}}.dump();
        }
        std::string operator()(const BaselineInput& in) const {
            json body{{"score", in.score.literal}};
            if (in.step) {
                body["step"] = in.step->literal;
            }
            return json{{"baseline", body}}.dump();
        }
        std::string operator()(const LoadInput& in) const { return json{{"load", in.payload}}.dump(); }
        std::string operator()(const MalformedInput& in) const { return in.line; }
    };
    return std::visit(Line{}, input);
}

std::vector<std::string> input_lines(const std::vector<PolicyInput>& inputs) {
    std::vector<std::string> lines;
    lines.reserve(inputs.size());
    for (const auto& input : inputs) {
        lines.push_back(input_line(input));
    }
    return lines;
}

}  // namespace ckpt::sim::conformance
