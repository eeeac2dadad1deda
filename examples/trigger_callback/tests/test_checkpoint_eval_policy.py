"""Unit tests of the example's policy: the rules, the JSON forms, and the sidecar's exact bytes.

Contract: every reason string, tie policy, the warm-up boundary and the external baseline, as
the C++ port decides them (`policy/core/*`); the sidecar texts below were printed by the port's
own `sidecar_text` (policy/formats/sidecar_format.cpp) and are compared byte for byte; the
`ckptsim policy` adapter answers a short script. No transformers, no torch, no simulator.
Run: python3 -m unittest discover -s examples/trigger_callback/tests
"""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from checkpoint_eval_policy import (  # noqa: E402
    CheckpointEvaluationDecision,
    CheckpointEvaluationPolicy,
    CheckpointEvaluationState,
    apply_checkpoint_evaluation_decision,
)
from ckpt_eval_sidecar import sidecar_text  # noqa: E402


class Control:
    def __init__(self):
        self.should_save = True
        self.should_evaluate = True
        self.should_training_stop = False


def reasons(policy, scores, start_step=10, every=10):
    return [policy.observe(score, step=start_step + i * every).reason for i, score in enumerate(scores)]


class PolicyRules(unittest.TestCase):
    def test_initial_improved_lower_then_exhausted(self):
        policy = CheckpointEvaluationPolicy(patience=2)
        self.assertEqual(reasons(policy, [0.5, 0.6, 0.4, 0.3]),
                         ["initial", "improved", "lower", "patience_exhausted"])
        self.assertEqual((policy.state.best_score, policy.state.best_step), (0.6, 20))
        self.assertTrue(policy.state.stop_requested)
        self.assertEqual(policy.state.evaluation_count, 4)

    def test_a_decision_carries_the_state_after_it(self):
        policy = CheckpointEvaluationPolicy(patience=3)
        policy.observe(0.5, step=10)
        decision = policy.observe(0.25, step=20)
        self.assertEqual(decision.to_dict(), {
            "score": 0.25, "step": 20, "should_save": False, "should_stop": False, "reason": "lower",
            "best_score": 0.5, "best_step": 10, "lower_score_streak": 1, "evaluation_count": 2,
            "best_is_external": False})
        self.assertFalse(decision.improved)

    def test_each_tie_policy(self):
        expected = {"reset": ("tie_reset", 0, False), "ignore": ("tie_ignored", 1, False),
                    "stop": ("tie_stop", 1, True), "count": ("patience_exhausted", 2, True)}
        for tie, (reason, streak, stop) in expected.items():
            policy = CheckpointEvaluationPolicy(patience=2, tie_policy=tie)
            policy.observe(0.5, step=10)
            policy.observe(0.4, step=20)
            decision = policy.observe(0.5, step=30)
            self.assertEqual((decision.reason, decision.lower_score_streak, decision.should_stop),
                             (reason, streak, stop), tie)
            self.assertFalse(decision.should_save, "a tie never replaces the best")
            self.assertEqual(policy.state.best_step, 10)

    def test_a_counted_tie_that_does_not_exhaust_is_tie_counted(self):
        policy = CheckpointEvaluationPolicy(patience=3, tie_policy=" COUNT ")
        self.assertEqual(reasons(policy, [0.5, 0.5]), ["initial", "tie_counted"])
        self.assertEqual(policy.tie_policy, "count")

    def test_warmup_never_consumes_patience_and_its_boundary_counts(self):
        policy = CheckpointEvaluationPolicy(patience=1, patience_start_step=35)
        self.assertEqual(reasons(policy, [0.5, 0.4, 0.5]),
                         ["initial", "patience_warmup_lower", "patience_warmup_tie"])
        self.assertEqual(policy.state.lower_score_streak, 0)
        self.assertEqual(policy.observe(0.7, step=32).reason, "improved", "warm-up still improves")
        decision = policy.observe(0.1, step=35)
        self.assertEqual(decision.reason, "patience_exhausted", "the boundary step itself counts")

    def test_the_external_baseline_is_no_evaluation_and_a_restored_best_wins(self):
        policy = CheckpointEvaluationPolicy(patience=2)
        state = policy.establish_external_baseline(0.5)
        self.assertEqual((state.best_score, state.best_step, state.best_is_external, state.evaluation_count),
                         (0.5, 0, True, 0))
        decision = policy.observe(0.4, step=10)
        self.assertEqual((decision.reason, decision.best_is_external), ("lower", True))
        self.assertEqual(policy.observe(0.6, step=20).reason, "improved")
        self.assertFalse(policy.state.best_is_external)
        policy.establish_external_baseline(0.9, step=0)
        self.assertEqual(policy.state.best_score, 0.6, "a baseline never overwrites a best")
        with self.assertRaisesRegex(ValueError, "score must be finite, got inf"):
            policy.establish_external_baseline(float("inf"))

    def test_refused_input_changes_nothing(self):
        policy = CheckpointEvaluationPolicy()
        policy.observe(0.5, step=10)
        before = policy.state_dict()
        cases = [(float("nan"), 20, "checkpoint evaluation score must be finite, got nan"),
                 ("abc", 20, "checkpoint evaluation score must be numeric, got 'abc'"),
                 (0.1, -1, "checkpoint evaluation step must be a non-negative integer"),
                 (0.1, 2.5, "checkpoint evaluation step must be a non-negative integer"),
                 (0.1, True, "checkpoint evaluation step must be a non-negative integer"),
                 (0.1, "3", "checkpoint evaluation step must be a non-negative integer")]
        for score, step, message in cases:
            with self.assertRaises(ValueError) as raised:
                policy.observe(score, step=step)
            self.assertEqual(str(raised.exception), message)
        self.assertEqual(policy.state_dict(), before)
        self.assertEqual(policy.observe("0.25", step=20.0).step, 20, "float() and integral floats, as Python")

    def test_observing_after_a_stop_is_a_runtime_error(self):
        policy = CheckpointEvaluationPolicy(patience=1)
        reasons(policy, [0.5, 0.4])
        with self.assertRaisesRegex(RuntimeError, "already requested training stop"):
            policy.observe(0.9, step=100)

    def test_settings_are_validated_with_the_ports_messages(self):
        for kwargs, message in [({"patience": 0}, "patience must be a positive integer, got 0"),
                                ({"patience": "x"}, "patience must be a positive integer"),
                                ({"tie_policy": "never"}, "tie_policy must be one of: reset, ignore, stop, count"),
                                ({"patience_start_step": -1}, "patience_start_step must be a non-negative integer")]:
            with self.assertRaises(ValueError) as raised:
                CheckpointEvaluationPolicy(**kwargs)
            self.assertEqual(str(raised.exception), message)


class PolicyState(unittest.TestCase):
    def test_state_dict_round_trip_and_refused_loads(self):
        policy = CheckpointEvaluationPolicy(patience=2, tie_policy="count", patience_start_step=5)
        reasons(policy, [0.5, 0.4])
        payload = policy.state_dict()
        self.assertEqual(list(payload), ["version", "patience", "tie_policy", "patience_start_step", "state"])
        again = CheckpointEvaluationPolicy.from_state_dict(json.loads(json.dumps(payload)))
        self.assertEqual(again.state, policy.state)
        for change, message in [({"version": 2}, "unsupported checkpoint evaluation state version: 2"),
                                ({"patience": 3}, "resumed checkpoint evaluation patience does not match configuration"),
                                ({"tie_policy": "reset"},
                                 "resumed checkpoint evaluation tie_policy does not match configuration"),
                                ({"state": []}, "checkpoint evaluation state payload must contain a state mapping")]:
            with self.assertRaises(ValueError) as raised:
                again.load_state_dict(dict(payload, **change))
            self.assertEqual(str(raised.exception), message)
        self.assertEqual(again.state, policy.state, "a refused load changes nothing")

    def test_an_integer_best_score_loads_as_a_float(self):
        policy = CheckpointEvaluationPolicy()
        policy.load_state_dict({"state": {"best_score": 1, "best_step": 4.0, "evaluation_count": "2"}})
        self.assertIsInstance(policy.state.best_score, float)
        self.assertEqual(policy.state.evaluation_count, 2)

    def test_inconsistent_states_are_refused(self):
        for state, message in [({"best_step": 3}, "checkpoint evaluation state has best_step without best_score"),
                               ({"lower_score_streak": -1}, "checkpoint evaluation counters cannot be negative"),
                               ({"stop_requested": 1, "best_score": 0.5}, "best_score without best_step")]:
            with self.assertRaises(ValueError) as raised:
                CheckpointEvaluationPolicy().load_state_dict({"state": state})
            self.assertIn(message, str(raised.exception))
        with self.assertRaises(ValueError):
            CheckpointEvaluationPolicy(state=CheckpointEvaluationState(evaluation_count=1))

    def test_decision_from_dict_validates_like_the_port(self):
        with self.assertRaises(ValueError) as raised:
            CheckpointEvaluationDecision.from_dict({"score": 1.0, "step": 3})
        self.assertEqual(str(raised.exception), "checkpoint evaluation decision missing fields: ['best_score', "
                         "'best_step', 'evaluation_count', 'lower_score_streak', 'reason', 'should_save', 'should_stop']")
        decision = CheckpointEvaluationPolicy().observe(0.5, step=10)
        wire = json.loads(json.dumps(decision.to_dict()))
        self.assertEqual(CheckpointEvaluationDecision.from_dict(wire), decision)
        with self.assertRaisesRegex(ValueError, "unknown reason: 'better'"):
            CheckpointEvaluationDecision.from_dict(dict(wire, reason="better"))

    def test_apply_vetoes_a_non_improving_save_and_requests_the_stop(self):
        policy = CheckpointEvaluationPolicy(patience=1)
        control = apply_checkpoint_evaluation_decision(Control(), policy.observe(0.5, step=10))
        self.assertEqual((control.should_save, control.should_evaluate, control.should_training_stop),
                         (True, False, False))
        control = apply_checkpoint_evaluation_decision(Control(), policy.observe(0.4, step=20).to_dict())
        self.assertEqual((control.should_save, control.should_evaluate, control.should_training_stop),
                         (False, False, True))


# Printed by the port's sidecar_text for the same inputs (see the module docstring).
PORT_SIDECARS = [
    ((2, "count", 5), [("baseline", 1e16, 0), ("observe", 1e16, 3), ("observe", 2.5e-05, 7)], 7, 2,
     "{\n  \"checkpoint_eval_state\": {\n    \"patience\": 2,\n    \"patience_start_step\": 5,\n    \"state\": {\n"
     "      \"best_is_external\": true,\n      \"best_score\": 1e+16,\n      \"best_step\": 0,\n"
     "      \"evaluation_count\": 2,\n      \"lower_score_streak\": 1,\n      \"stop_requested\": false\n    },\n"
     "    \"tie_policy\": \"count\",\n    \"version\": 1\n  },\n  \"last_evaluated_step\": 7,\n  \"version\": 2\n}\n"),
    ((1, "stop", 0), [("observe", 0.1, 10), ("observe", 0.30000000000000004, 20),
                      ("observe", 0.30000000000000004, 30)], None, 2,
     "{\n  \"checkpoint_eval_state\": {\n    \"patience\": 1,\n    \"patience_start_step\": 0,\n    \"state\": {\n"
     "      \"best_is_external\": false,\n      \"best_score\": 0.30000000000000004,\n      \"best_step\": 20,\n"
     "      \"evaluation_count\": 3,\n      \"lower_score_streak\": 0,\n      \"stop_requested\": true\n    },\n"
     "    \"tie_policy\": \"stop\",\n    \"version\": 1\n  },\n  \"last_evaluated_step\": null,\n  \"version\": 2\n}\n"),
    ((3, "ignore", 0), [("observe", -0.0, 10), ("observe", -1.5, 20)], 20, 1,
     "{\n  \"checkpoint_eval_state\": {\n    \"patience\": 3,\n    \"patience_start_step\": 0,\n    \"state\": {\n"
     "      \"best_is_external\": false,\n      \"best_score\": -0.0,\n      \"best_step\": 10,\n"
     "      \"evaluation_count\": 2,\n      \"lower_score_streak\": 1,\n      \"stop_requested\": false\n    },\n"
     "    \"tie_policy\": \"ignore\",\n    \"version\": 1\n  },\n  \"version\": 1\n}\n"),
    ((3, "reset", 0), [("load", {"state": {"best_score": 1, "best_step": 4, "evaluation_count": 2}}, None)], 4, 2,
     "{\n  \"checkpoint_eval_state\": {\n    \"patience\": 3,\n    \"patience_start_step\": 0,\n    \"state\": {\n"
     "      \"best_is_external\": false,\n      \"best_score\": 1.0,\n      \"best_step\": 4,\n"
     "      \"evaluation_count\": 2,\n      \"lower_score_streak\": 0,\n      \"stop_requested\": false\n    },\n"
     "    \"tie_policy\": \"reset\",\n    \"version\": 1\n  },\n  \"last_evaluated_step\": 4,\n  \"version\": 2\n}\n"),
]


class SidecarBytes(unittest.TestCase):
    def test_the_sidecar_is_the_ports_text_byte_for_byte(self):
        for (patience, tie, start), ops, last, version, expected in PORT_SIDECARS:
            policy = CheckpointEvaluationPolicy(patience=patience, tie_policy=tie, patience_start_step=start)
            for verb, value, step in ops:
                if verb == "observe":
                    policy.observe(value, step=step)
                elif verb == "baseline":
                    policy.establish_external_baseline(value, step=step)
                else:
                    policy.load_state_dict(value)
            self.assertEqual(sidecar_text(policy, last, version), expected)

    def test_an_unknown_version_is_refused(self):
        with self.assertRaisesRegex(ValueError, "sidecar version must be 1 or 2, got 3"):
            sidecar_text(CheckpointEvaluationPolicy(), None, 3)


class PolicyProtocolAdapter(unittest.TestCase):
    def test_the_adapter_answers_as_ckptsim_policy(self):
        lines = ['{"observe":{"score":0.5,"step":10}}', '', '{"observe":{"score":"nan","step":20}}',
                 '{"baseline":{"score":0.9}}', '{"observe":{"score":0.5}}', '{"observe":{"score":0.4,"step":20}}',
                 '{"observe":{"score":0.4,"step":30}}']
        run = subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), "policy_protocol.py"),
                              "--patience", "1"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                             timeout=60)
        answers = [json.loads(line) for line in run.stdout.splitlines()]
        self.assertEqual(run.returncode, 2, "an input_error makes the exit status 2")
        self.assertEqual([a.get("decision", {}).get("reason") or a.get("error", {}).get("kind") or "state"
                          for a in answers],
                         ["initial", "value_error", "state", "input_error", "patience_exhausted", "runtime_error"])
        self.assertEqual(answers[2]["state"]["state"]["best_score"], 0.5, "the baseline kept the best")


if __name__ == "__main__":
    unittest.main()
