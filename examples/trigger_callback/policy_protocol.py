"""`ckptsim policy`'s JSON Lines protocol over this example's policy, for `ckptsim check-policy`.

Contract: `python3 policy_protocol.py [--patience N] [--tie-policy T] [--patience-start-step S]`
reads request lines on stdin and writes one answer line per non-blank request, exactly as
`sim/cli/policy_protocol.cpp` answers (docs/policy-protocol.md): a decision and the state after
an observe, the state after a baseline or a load, {"error": {"kind": "value_error" |
"runtime_error"}, "state"} when the policy refuses, and {"error": {"kind": "input_error"}} for a
line that is not one of the protocol's forms (the exit status is then 2). Imports only the
policy core, never transformers, so each of check-policy's hundreds of starts stays cheap.
"""

import argparse
import json
import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ckpt_eval_core import CheckpointEvaluationPolicy  # noqa: E402
from ckpt_eval_values import MalformedJson, parse_untrusted_json  # noqa: E402

MAX_LINE_BYTES = 1 << 20


class InputError(Exception):
    """A line that is not one of the protocol's forms (not the policy's own refusal)."""


def _decode_score(score: Any) -> Any:
    # JSON has no literal for non-finite numbers: the protocol spells them as strings.
    return {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}.get(score, score) \
        if isinstance(score, str) else score


def _body(request: Dict[str, Any], verb: str) -> Dict[str, Any]:
    body = request[verb]
    if not isinstance(body, dict):
        raise InputError("'%s' must be a JSON object" % verb)
    for key in body:
        if key not in ("score", "step"):
            raise InputError("unknown key '%s' in '%s'" % (key, verb))
    if "score" not in body:
        raise InputError("missing field 'score' in '%s'" % verb)
    return body


def answer_line(policy: CheckpointEvaluationPolicy, line: bytes, number: int) -> Dict[str, Any]:
    try:
        request = parse_untrusted_json(line, "line %d" % number)
    except MalformedJson as error:
        raise InputError(str(error)) from None
    if not isinstance(request, dict):
        raise InputError("a request line must be a JSON object")
    if len(request) != 1:
        raise InputError("a request line must hold exactly one of 'observe', 'baseline', 'load'")
    verb = next(iter(request))
    if verb not in ("observe", "baseline", "load"):
        raise InputError("unknown key '%s': expected 'observe', 'baseline' or 'load'" % verb)
    if verb != "load":
        body = _body(request, verb)
        if verb == "observe" and "step" not in body:
            raise InputError("missing field 'step' in 'observe'")
    try:
        if verb == "observe":
            decision = policy.observe(_decode_score(body["score"]), step=body["step"])
            return {"decision": decision.to_dict(), "state": policy.state_dict()}
        if verb == "baseline":
            policy.establish_external_baseline(_decode_score(body["score"]), step=body.get("step", 0))
        else:
            policy.load_state_dict(request["load"])
        return {"state": policy.state_dict()}
    except ValueError as error:
        return {"error": {"kind": "value_error", "message": str(error)}, "state": policy.state_dict()}
    except RuntimeError as error:
        return {"error": {"kind": "runtime_error", "message": str(error)}, "state": policy.state_dict()}


def main(argv: Any = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patience", type=int, default=3)
    parser.add_argument("--tie-policy", default="reset")
    parser.add_argument("--patience-start-step", type=int, default=0)
    options = parser.parse_args(argv)
    try:
        policy = CheckpointEvaluationPolicy(patience=options.patience, tie_policy=options.tie_policy,
                                            patience_start_step=options.patience_start_step)
    except ValueError as error:
        sys.stderr.write("policy_protocol: %s\n" % error)
        return 2
    any_input_error = False
    out = sys.stdout
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        line = raw[:-1] if raw.endswith(b"\n") else raw
        too_long = len(line) > MAX_LINE_BYTES
        if not too_long and not line.strip(b" \t\r\n"):
            continue
        try:
            if too_long:
                raise InputError("line %d is longer than %d bytes" % (number, MAX_LINE_BYTES))
            answer = answer_line(policy, line, number)
        except Exception as error:  # the port answers any other failure as the line's fault too
            where = "line %d" % number
            message = str(error) if str(error).startswith(where) else where + ": " + str(error)
            answer = {"error": {"kind": "input_error", "message": message}}
            any_input_error = True
        out.write(json.dumps(answer, separators=(",", ":")) + "\n")
    out.flush()
    return 2 if any_input_error else 0


if __name__ == "__main__":
    sys.exit(main())
