"""OriginalApiBinding (examples/trigger_callback) driven through `serve`: the round's requests
and notes in the C++ round's order, in a world of one and on a non-zero rank, and the envelope's
failure text; plus the selftest command."""

import errno
import os
import subprocess
import sys
import unittest

from fakesim import ARGS, CONTROL, REPO, SHIM_DIR, STATE, FakeSim

BINDING = os.path.join(REPO, "examples", "trigger_callback", "ckptsim_binding.py") + ":OriginalApiBinding"
TRIGGER = "mini_trigger:CheckpointEvaluationTriggerCallback"


def start(**options):
    sim = FakeSim(TRIGGER, binding=BINDING, **options)
    ready = sim.ready()
    assert ready["binding"] == BINDING, ready
    assert sim.call("construct", kwargs={"patience": 2})["t"] == "return"
    assert sim.call("on_train_begin", args=ARGS, state=STATE, control=CONTROL)["t"] == "return"
    return sim


def note_names(sim):
    return [(n["name"], n.get("operation")) if n["name"] == "waiting_point" else n["name"] for n in sim.notes]


class OriginalApiBindingTest(unittest.TestCase):
    def test_saving_decision_in_a_world_of_one(self):
        sim = start()
        end = sim.call("evaluate", score=0.5, step=10, control=dict(CONTROL, should_evaluate=True))
        self.assertEqual(end["t"], "return", end)
        self.assertEqual(end["value"]["decision"]["reason"], "improved")
        self.assertEqual(end["control"], dict(CONTROL, should_save=True))
        self.assertEqual(end["policy_state"]["best_step"], 10)
        self.assertEqual(note_names(sim), [("waiting_point", "decision"), "decision", "rank_state", "after_recorded"])
        self.assertEqual(sim.requests, [])  # a world of one: no collective, no persist
        self.assertEqual(sim.call("pending_save_step")["value"], 10)
        self.assertEqual(sim.shutdown(), 0)

    def test_lower_score_persists_in_a_second_envelope(self):
        sim = start()
        sim.call("evaluate", score=0.5, step=10, control=CONTROL)
        sim.notes.clear()
        end = sim.call("evaluate", score=0.4, step=20, control=CONTROL)
        self.assertEqual(end["value"]["decision"]["should_save"], False)
        self.assertEqual(note_names(sim), [("waiting_point", "decision"), "decision", "rank_state", "after_recorded",
                                           ("waiting_point", "persist"), "after_persist"])
        self.assertEqual(sim.ops(), ["write_file", "write_file", "fsync_file", "rename"])
        decision_note = sim.notes[1]
        self.assertEqual(decision_note["prior"]["lower_score_streak"], 0)
        self.assertEqual(decision_note["after"]["lower_score_streak"], 1)
        stop = sim.call("evaluate", score=0.3, step=30, control=CONTROL)
        self.assertTrue(stop["control"]["should_training_stop"])
        self.assertIn("stop_in_force", note_names(sim))
        self.assertEqual(sim.shutdown(), 0)

    def test_persist_failure_is_the_envelope_text(self):
        sim = start()
        sim.call("evaluate", score=0.5, step=10, control=CONTROL)
        sim.inject[("rename", "/run/output/checkpoint_eval_state.json")] = errno.ENOSPC
        end = sim.call("evaluate", score=0.4, step=20, control=CONTROL)
        self.assertEqual((end["t"], end["type"], end["kind"]), ("raise", "RuntimeError", "other"))
        self.assertTrue(end["message"].startswith(
            "checkpoint evaluation persist failed on global rank zero (OSError): [Errno 28] No space left on device"),
            end["message"])
        self.assertEqual(sim.shutdown(), 0)

    def test_other_rank_adopts_rank_zero_outcome(self):
        sim = start(rank=1, world_size=2)
        decision = {"score": 0.5, "step": 10, "should_save": True, "should_stop": False, "reason": "improved"}
        state = {"best_score": 0.5, "best_step": 10, "lower_score_streak": 0, "evaluation_count": 1,
                 "stop_requested": False, "best_is_external": False}
        sim.broadcasts.append({"ok": True, "decision": decision, "policy_state": {"state": state}})
        end = sim.call("evaluate", score=0.5, step=10, control=CONTROL)
        self.assertEqual(end["t"], "return", end)
        self.assertEqual(end["policy_state"], state)
        self.assertEqual([(r["op"], r["src"], r["value"]) for r in sim.requests], [("broadcast", 0, None)])
        self.assertEqual(note_names(sim), [("waiting_point", "decision"), "rank_state", "after_recorded"])
        # Rank 0 failed: every rank raises the same text.
        sim.broadcasts.append({"ok": False, "error_type": "ValueError", "error": "score must be finite"})
        end = sim.call("evaluate", score=0.1, step=20, control=CONTROL)
        self.assertEqual(end["message"], "checkpoint evaluation decision failed on global rank zero "
                                         "(ValueError): score must be finite")
        sim.broadcasts.append("garbage")
        end = sim.call("evaluate", score=0.1, step=30, control=CONTROL)
        self.assertEqual(end["message"], "checkpoint evaluation decision did not receive a valid rank-zero outcome")
        self.assertEqual(sim.shutdown(), 0)

    def test_baseline_and_classification(self):
        sim = start()
        self.assertEqual(sim.call("baseline", score=0.2, step=0)["policy_state"]["best_is_external"], True)
        self.assertEqual(sim.call("consume_checkpoint_evaluation")["value"], False)
        self.assertEqual(sim.shutdown(), 0)

    def test_default_binding_refuses_the_glue(self):
        sim = FakeSim(TRIGGER)
        sim.ready()
        sim.call("construct", kwargs={})
        end = sim.call("consume_checkpoint_evaluation")
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("does not implement consume_checkpoint_evaluation", end["message"])
        self.assertEqual(sim.wait(), 3)


class SelftestTest(unittest.TestCase):
    def test_selftest_passes(self):
        result = subprocess.run([sys.executable, "-m", "ckptsim_shim", "selftest"], cwd=SHIM_DIR,
                                capture_output=True, text=True, timeout=30,
                                env=dict(os.environ, PYTHONPATH=SHIM_DIR))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("selftest passed", result.stdout)


if __name__ == "__main__":
    unittest.main()
