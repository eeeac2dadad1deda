"""The example callback on a real temporary output_dir, world size 1, without torch.

Contract: save events become evaluations; on_save commits only a complete checkpoint (link
first, then the sidecar, both atomic); a lower score is persisted; on_train_begin removes
leftover temp files, restores the callback's own state from the resume checkpoint, adopts a
newer committed sidecar (its last_evaluated_step becoming the replay horizon), recovers a
cut-short commit and restores the stop; refusals and state()/from_state are the port's.
"""

import json
import os
import sys
import tempfile
import unittest
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from checkpoint_eval_policy import (  # noqa: E402
    CheckpointEvaluationTriggerCallback,
    RankZeroFailure,
    TrainingArgumentsRefused,
    apply_checkpoint_evaluation_decision,
)
from ckpt_eval_sidecar import sidecar_text  # noqa: E402


def control():
    return SimpleNamespace(should_save=False, should_evaluate=False, should_training_stop=False,
                           should_epoch_stop=False, should_log=False)


def trainer_state(step):
    return SimpleNamespace(global_step=step, is_world_process_zero=True)


class OutputDir(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self._tmp.name, "output")
        os.mkdir(self.out)
        self.args = SimpleNamespace(output_dir=self.out, save_strategy="steps", save_total_limit=None,
                                    metric_for_best_model=None, greater_is_better=None,
                                    load_best_model_at_end=False, restore_callback_states_from_checkpoint=False)

    def tearDown(self):
        self._tmp.cleanup()

    def write_checkpoint(self, step, callback):
        """What Trainer._save_checkpoint leaves: weights, then trainer_state.json with the callbacks."""
        directory = os.path.join(self.out, "checkpoint-%d" % step)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "model.safetensors"), "wb") as handle:
            handle.write(b"weights")
        with open(os.path.join(directory, "trainer_state.json"), "w") as handle:
            json.dump({"global_step": step, "stateful_callbacks": {
                "CheckpointEvaluationTriggerCallback": callback.state()}}, handle)

    def evaluate(self, callback, score, step, ctl):
        """The trainer's glue in a world of one: observe, apply, record, persist a non-save."""
        decision = callback.policy.observe(score, step=step)
        apply_checkpoint_evaluation_decision(ctl, decision)
        callback.record_checkpoint_evaluation_decision(decision.to_dict())
        if not decision.should_save:
            callback.persist()
        return decision

    def save_step(self, callback, step, score):
        """One scheduled save event through evaluation, the native save and on_save."""
        ctl = control()
        callback.on_step_end(self.args, trainer_state(step), ctl)
        self.assertTrue(ctl.should_evaluate and not ctl.should_save)
        self.assertTrue(callback.consume_checkpoint_evaluation())
        decision = self.evaluate(callback, score, step, ctl)
        if ctl.should_save:
            self.write_checkpoint(step, callback)
            callback.on_save(self.args, trainer_state(step), ctl)
        return decision, ctl

    def read(self, name):
        with open(os.path.join(self.out, name), "rb") as handle:
            return handle.read().decode("utf-8")

    def started(self, step=0, **kwargs):
        callback = CheckpointEvaluationTriggerCallback(**kwargs)
        ctl = control()
        callback.on_train_begin(self.args, trainer_state(step), ctl)
        return callback, ctl


class Commit(OutputDir):
    def test_an_improved_score_is_linked_then_recorded(self):
        callback, _ = self.started(regular_steps=10, patience=2)
        decision, ctl = self.save_step(callback, 10, 0.5)
        self.assertEqual((decision.reason, ctl.should_save), ("initial", True))
        self.assertEqual(os.readlink(os.path.join(self.out, "final_checkpoint")), "checkpoint-10")
        self.assertEqual(self.read("checkpoint_eval_state.json"), sidecar_text(callback.policy, 10))
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["checkpoint-10", "checkpoint_eval_state.json", "final_checkpoint"], "no temp file left")
        self.assertIsNone(callback._pending_checkpoint_save_step)

    def test_a_lower_score_is_persisted_at_once_and_saves_nothing(self):
        callback, _ = self.started(regular_steps=10, patience=3)
        self.save_step(callback, 10, 0.5)
        decision, ctl = self.save_step(callback, 20, 0.25)
        self.assertEqual((decision.reason, ctl.should_save), ("lower", False))
        self.assertFalse(os.path.exists(os.path.join(self.out, "checkpoint-20")))
        text = self.read("checkpoint_eval_state.json")
        self.assertEqual(text, sidecar_text(callback.policy, 20))
        self.assertIn('"last_evaluated_step": 20', text)

    def test_a_newer_best_prunes_older_checkpoints_to_the_limit(self):
        callback, _ = self.started(regular_steps=10, save_total_limit=2)
        for step, score in [(10, 0.1), (20, 0.2), (30, 0.3)]:
            self.save_step(callback, step, score)
        self.assertEqual(sorted(name for name in os.listdir(self.out) if name.startswith("checkpoint-")),
                         ["checkpoint-20", "checkpoint-30"])

    def test_on_save_refuses_an_incomplete_checkpoint_and_an_unexpected_step(self):
        callback, _ = self.started(regular_steps=10)
        ctl = control()
        callback.on_step_end(self.args, trainer_state(10), ctl)
        self.evaluate(callback, 0.5, 10, ctl)
        os.makedirs(os.path.join(self.out, "checkpoint-10"))  # the save crashed before trainer_state.json
        with self.assertRaises(RankZeroFailure) as raised:
            callback.on_save(self.args, trainer_state(10), ctl)
        self.assertEqual(raised.exception.operation, "saved checkpoint publication")
        self.assertEqual(str(raised.exception),
                         "checkpoint evaluation saved checkpoint publication failed on global rank zero "
                         "(RuntimeError): checkpoint evaluation expected native Trainer to write the new best "
                         "checkpoint before on_save: " + self.out + "/checkpoint-10")
        callback.record_checkpoint_evaluation_decision(callback.policy.observe(0.9, step=20))
        with self.assertRaisesRegex(RuntimeError, "expected_step=20, saved_step=30"):
            callback.on_save(self.args, trainer_state(30), ctl)

    def test_gate_steps_are_save_events_and_a_stop_vetoes_the_epoch_end_save(self):
        callback, _ = self.started(gate_steps=[7, 3, 7], patience=1)
        self.assertEqual(callback.gate_steps, [3, 7])
        ctl = control()
        callback.on_step_end(self.args, trainer_state(4), ctl)
        self.assertFalse(ctl.should_evaluate)
        self.save_step(callback, 3, 0.5)
        decision, ctl = self.save_step(callback, 7, 0.4)
        self.assertTrue(ctl.should_training_stop and decision.should_stop)
        ctl = control()
        ctl.should_save = True
        callback.on_epoch_end(self.args, trainer_state(8), ctl)
        self.assertEqual((ctl.should_save, ctl.should_evaluate, callback.trigger_count), (False, False, 2))


class Resume(OutputDir):
    def test_leftover_temp_files_go_and_a_cut_short_commit_is_recovered(self):
        first, _ = self.started(regular_steps=10)
        ctl = control()
        first.on_step_end(self.args, trainer_state(10), ctl)
        self.evaluate(first, 0.5, 10, ctl)
        self.write_checkpoint(10, first)  # killed before on_save: no link, no sidecar
        for name in (".checkpoint_eval_state.json.tmp-sim-3", ".final_checkpoint.tmp"):
            open(os.path.join(self.out, name), "w").close()
        second, ctl = self.started(step=10, regular_steps=10)
        self.assertEqual(second.policy.state.best_step, 10, "its own state, from checkpoint-10")
        self.assertTrue(second.state_restored)
        self.assertEqual(os.readlink(os.path.join(self.out, "final_checkpoint")), "checkpoint-10")
        self.assertEqual(self.read("checkpoint_eval_state.json"), sidecar_text(second.policy, None))
        self.assertFalse([n for n in os.listdir(self.out) if ".tmp" in n])

    def test_a_newer_committed_sidecar_is_adopted_and_replayed_steps_are_dropped(self):
        first, _ = self.started(regular_steps=10, patience=3)
        self.save_step(first, 10, 0.5)
        self.save_step(first, 20, 0.4)
        self.save_step(first, 30, 0.3)
        second, ctl = self.started(step=10, regular_steps=10, patience=3)
        self.assertEqual((second.policy.state.lower_score_streak, second.replay_horizon), (2, 30))
        self.assertEqual(second.trigger_count, 1, "trigger_count is checkpoint-10's")
        for step in (20, 30):
            ctl = control()
            second.on_step_end(self.args, trainer_state(step), ctl)
            self.assertEqual((ctl.should_save, ctl.should_evaluate), (False, False), step)
        ctl = control()
        second.on_step_end(self.args, trainer_state(40), ctl)
        self.assertTrue(ctl.should_evaluate)
        self.assertEqual(self.evaluate(second, 0.2, 40, ctl).reason, "patience_exhausted")

    def test_a_sidecar_naming_an_uncommitted_best_is_not_adopted(self):
        first, _ = self.started(regular_steps=10)
        self.save_step(first, 10, 0.5)
        ctl = control()
        first.on_step_end(self.args, trainer_state(20), ctl)
        self.evaluate(first, 0.9, 20, ctl)
        first.persist()  # a sidecar naming checkpoint-20, which was never written
        second, _ = self.started(step=10, regular_steps=10)
        self.assertEqual((second.policy.state.best_step, second.replay_horizon), (10, None))

    def test_a_durable_stop_is_restored(self):
        first, _ = self.started(regular_steps=10, patience=1)
        self.save_step(first, 10, 0.5)
        self.save_step(first, 20, 0.4)
        second, ctl = self.started(step=10, regular_steps=10, patience=1)
        self.assertTrue(ctl.should_training_stop and second.policy.state.stop_requested)

    def test_a_changed_setting_is_refused_on_resume(self):
        first, _ = self.started(regular_steps=10, patience=3)
        self.save_step(first, 10, 0.5)
        with self.assertRaises(RankZeroFailure) as raised:
            self.started(step=10, regular_steps=10, patience=4)
        self.assertEqual(raised.exception.operation, "sidecar policy restore")
        self.assertIn("(ValueError): checkpoint evaluation cannot resume from checkpoint-10 with a changed patience: "
                      "it was saved with patience=3, tie_policy=reset, patience_start_step=0, this run is configured "
                      "with patience=4, tie_policy=reset, patience_start_step=0; resume with the saved settings, or "
                      "start in a fresh output_dir to use the new ones", str(raised.exception))

    def test_a_malformed_sidecar_fails_the_restore_loudly(self):
        with open(os.path.join(self.out, "checkpoint_eval_state.json"), "w") as handle:
            handle.write('{"version": 1,')
        with self.assertRaises(RankZeroFailure) as raised:
            self.started()
        self.assertTrue(str(raised.exception).endswith(
            "(ValueError): Cannot load checkpoint evaluation metadata from "
            + os.path.join(self.out, "checkpoint_eval_state.json")))

    def test_a_dead_link_is_dropped(self):
        os.symlink("checkpoint-50", os.path.join(self.out, "final_checkpoint"))
        self.started()
        self.assertFalse(os.path.lexists(os.path.join(self.out, "final_checkpoint")))


class StateAndRefusals(OutputDir):
    def test_state_is_the_ports_export_and_from_state_rebuilds_it(self):
        callback, _ = self.started(gate_steps=[5], regular_steps=10, patience=2, tie_policy="Count")
        self.save_step(callback, 5, 0.5)
        state = json.loads(json.dumps(callback.state()))
        self.assertEqual(state["args"], {"enabled": True, "patience": 2, "tie_policy": "count",
                                         "patience_start_step": 0, "gate_steps": [5], "regular_steps": 10,
                                         "save_total_limit": 1, "output_dir": self.out})
        self.assertEqual(sorted(state["attributes"]),
                         ["checkpoint_eval_state", "pending_checkpoint_evaluation", "trigger_count"])
        rebuilt = CheckpointEvaluationTriggerCallback.from_state(state)
        self.assertEqual(rebuilt.state(), callback.state())
        self.assertTrue(rebuilt.state_restored)
        # Transformers' _load_callback_state: type(cb)(**args), then setattr of each attribute.
        restored = CheckpointEvaluationTriggerCallback(**state["args"])
        for key, value in state["attributes"].items():
            setattr(restored, key, value)
        self.assertEqual(restored.state(), callback.state())
        self.assertEqual(restored.checkpoint_eval_state, callback.policy.state_dict())

    def test_bad_arguments_are_refused(self):
        for kwargs, message in [({"save_total_limit": 0}, "save_total_limit must be positive"),
                                ({"gate_steps": [0]}, "gate_steps must contain positive integers"),
                                ({"regular_steps": -5}, "regular_steps must be positive")]:
            with self.assertRaisesRegex(ValueError, message):
                CheckpointEvaluationTriggerCallback(**kwargs)

    def test_unsafe_training_arguments_are_refused_with_the_ports_messages(self):
        cases = [({"save_strategy": "best"}, 'cannot run with save_strategy="best"'),
                 ({"metric_for_best_model": "loss", "save_total_limit": 2}, 'metric_for_best_model="loss" beside'),
                 ({"metric_for_best_model": "score", "greater_is_better": True, "save_total_limit": 1},
                  "cannot run with save_total_limit=1 and metric_for_best_model"),
                 ({"load_best_model_at_end": True, "save_total_limit": 3}, 'metric_for_best_model="loss" beside'),
                 ({"metric_for_best_model": "score", "greater_is_better": True, "save_total_limit": 2,
                   "eval_strategy": "steps"}, 'cannot run with save_total_limit=2 beside eval_strategy="steps"'),
                 ({"restore_callback_states_from_checkpoint": True,
                   "stateful_classes_with_several_callbacks": ["EarlyStoppingCallback"]},
                  'several EarlyStoppingCallback callbacks: Transformers appends'),
                 ({"stateful_classes_the_checkpoint_lacks": ["EarlyStoppingCallback"]},
                  "cannot resume with EarlyStoppingCallback callbacks the checkpoint does not store")]
        base = dict(vars(self.args))
        for change, message in cases:
            self.args = SimpleNamespace(**dict(base, **change))
            with self.assertRaises(TrainingArgumentsRefused) as raised:
                self.started()
            self.assertIn(message, str(raised.exception))
            self.assertIsInstance(raised.exception, ValueError)
        self.args = SimpleNamespace(**dict(base, metric_for_best_model="score", greater_is_better=True,
                                           save_total_limit=2))
        self.started()  # the callback's own metric beside a limit >= 2 is safe
        self.args = SimpleNamespace(**dict(base, metric_for_best_model="score", greater_is_better=True,
                                           save_total_limit=3, eval_strategy="epoch"))
        self.started()  # and beside the trainer's own evaluations, a limit >= 3 (finding 24)


if __name__ == "__main__":
    unittest.main()
