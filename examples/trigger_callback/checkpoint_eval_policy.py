"""Best-checkpoint retention with early stopping for Transformers, as ckptsim's C++ port behaves.

Contract: the module users import (`CheckpointEvaluationState`, `CheckpointEvaluationDecision`,
`CheckpointEvaluationPolicy`, `apply_checkpoint_evaluation_decision`,
`CheckpointEvaluationTriggerCallback`), restating `policy/trigger/trigger_callback*` over the
helpers beside it. Transformers' save schedule stays the clock: a save event becomes an
evaluation, the trainer's glue observes the score on rank 0 and applies the decision, and only an
improved score is saved; `on_save` then makes that checkpoint durable and publishes it (the
final_checkpoint link first, then the sidecar) once every rank wrote it. A non-saving decision is
persisted by the glue at once (`persist()`). Only global rank 0 touches the sidecar and the link,
and every rank-zero outcome is broadcast. Errors: `ValueError` for a bad configuration or state
(`TrainingArgumentsRefused` for unsafe TrainingArguments), `RuntimeError` for a call out of order,
`RankZeroFailure` on every rank when rank 0 failed.

Replayed steps: after a resume from checkpoint-N, a save event at a step <= the adopted
sidecar's last_evaluated_step was already counted (never as a save), so it is dropped.
"""

import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from ckpt_eval_collective import RankZeroFailure, barrier, run_on_rank_zero_and_share_outcome
from ckpt_eval_core import (
    CheckpointEvaluationDecision,
    CheckpointEvaluationPolicy,
    CheckpointEvaluationState,
    apply_checkpoint_evaluation_decision,
)
from ckpt_eval_sidecar import (
    ADOPTED,
    BEST_MISMATCH,
    MISSING,
    SIDECAR_VERSION,
    UNCOMMITTED_BEST,
    judge_sidecar_adoption,
    read_sidecar,
    sidecar_text,
)
from ckpt_eval_trigger_rules import (
    TrainingArgumentsRefused,
    refuse_changed_settings,
    refuse_unsafe_training_args,
    restore_arguments,
)
from ckpt_eval_values import parse_lenient_json, to_int, truthy
from ckpt_links import (
    SIDECAR_NAME,
    SIDECAR_TEMP_PREFIX,
    TRAINER_STATE_NAME,
    checkpoint_dir_name,
    drop_link_to_lost_checkpoint,
    fsync_path,
    find_saved_trigger_callback,
    is_complete_checkpoint,
    join_path,
    make_checkpoint_durable,
    make_dirs,
    parent_path,
    read_file,
    remove_leftover_temp_files,
    update_final_checkpoint_link,
    write_file_atomically,
)

try:
    from transformers import TrainerCallback
    from transformers.trainer_callback import ExportableState
except ImportError:  # the module also imports (and its policy runs) without transformers

    class TrainerCallback:  # type: ignore[no-redef]
        """Stand-in for transformers.TrainerCallback: every event does nothing."""

    class ExportableState:  # type: ignore[no-redef]
        """Stand-in for transformers.trainer_callback.ExportableState."""

        def state(self) -> dict:
            raise NotImplementedError("You must implement a `state` function to utilize this class.")

SIDECAR_RESTORE = "sidecar policy restore"
ARTIFACT_RECOVERY = "committed checkpoint artifact recovery"
SAVED_CHECKPOINT_PUBLICATION = "saved checkpoint publication"


def _member(mapping: Any, key: str) -> Any:
    # The member, or {} when the mapping has none (or is no mapping at all).
    return mapping.get(key, {}) if isinstance(mapping, Mapping) else {}


def _get(mapping: Any, key: str, fallback: Any) -> Any:
    return mapping.get(key, fallback) if isinstance(mapping, Mapping) else fallback


class CheckpointEvaluationTriggerCallback(TrainerCallback, ExportableState):
    """Turns Transformers' save events into evaluations; publishes only improved checkpoints."""

    # Process-local configuration, never part of state(): the sidecar temp-file tag (None: the
    # process id), the sidecar version persist() writes (2, or 1 for a rollback to the previous
    # release) and the metric name a Trainer-tracked best must use to agree with this callback.
    temp_file_tag: Optional[str] = None
    sidecar_version: int = SIDECAR_VERSION
    score_metric: str = "score"

    def __init__(self, *, enabled: Any = True, patience: Any = 3, tie_policy: Any = "reset",
                 patience_start_step: Any = 0, gate_steps: Any = None, regular_steps: Any = None,
                 save_total_limit: Any = 1, output_dir: Any = None) -> None:
        # Transformers rebuilds a restored callback with type(cb)(**saved_args): the arguments
        # are coerced here exactly as the port's from_state coerces saved ones.
        self.enabled = truthy(enabled)
        self.policy = CheckpointEvaluationPolicy(patience=patience, tie_policy=tie_policy,
                                                 patience_start_step=patience_start_step)
        self.gate_steps, self.regular_steps, self.save_total_limit, self.output_dir = restore_arguments(
            gate_steps, regular_steps, save_total_limit, output_dir)
        self._pending_checkpoint_evaluation = False
        self._trigger_count = 0
        # Process-local: a checkpoint is serialised before on_save, so persisting this would
        # make a restored callback wait for a save that already happened.
        self._pending_checkpoint_save_step: Optional[int] = None
        self._policy_stop_requested = False
        # Written beside the policy state in the sidecar (one atomic write); not in state().
        self.last_evaluated_step: Optional[int] = None
        # load() refused the sidecar as an abandoned history's: removed once the link is repaired.
        self._sidecar_abandoned = False
        self.replay_horizon: Optional[int] = None
        self._is_world_process_zero: Optional[bool] = None
        self._resumed_run = False
        self._temp_counter = 0
        # True once this callback holds a state saved in a checkpoint (a restore, or its own).
        self.state_restored = False

    # ---- saved attributes (Transformers' restore sets them with setattr) ----------------------

    @property
    def pending_checkpoint_evaluation(self) -> bool:
        return self._pending_checkpoint_evaluation

    @pending_checkpoint_evaluation.setter
    def pending_checkpoint_evaluation(self, value: Any) -> None:
        self._pending_checkpoint_evaluation = truthy(value)

    @property
    def trigger_count(self) -> int:
        return self._trigger_count

    @trigger_count.setter
    def trigger_count(self, value: Any) -> None:
        self._trigger_count = to_int(value)

    @property
    def checkpoint_eval_state(self) -> Dict[str, Any]:
        return self.policy.state_dict()

    @checkpoint_eval_state.setter
    def checkpoint_eval_state(self, payload: Mapping[str, Any]) -> None:
        self.policy.load_state_dict(payload)
        self._policy_stop_requested = self.policy.state.stop_requested
        self.state_restored = True

    @property
    def state_path(self) -> Optional[Path]:
        path = self._state_path()
        return None if path is None else Path(path)

    def _state_path(self) -> Optional[str]:
        return None if not self.output_dir else join_path(self.output_dir, SIDECAR_NAME)

    def _is_rank_zero(self) -> bool:
        return True if self._is_world_process_zero is None else self._is_world_process_zero

    # ---- save events ----------------------------------------------------------------------------

    def _step_is_scheduled(self, step: int) -> bool:
        if step in self.gate_steps:
            return True
        return self.regular_steps is not None and step > 0 and step % self.regular_steps == 0

    def _redirect_save_to_evaluate(self, control: Any, step: int) -> None:
        # Transformers still calls on_epoch_end after a policy stop, and DefaultFlowCallback may
        # set should_save there: veto it, or the run pays one more evaluation after patience ran
        # out. should_training_stop is no test: it is also true at max_steps, where the final
        # scheduled checkpoint must still be evaluated.
        if self._policy_stop_requested:
            control.should_save = False
            control.should_evaluate = False
            self._pending_checkpoint_evaluation = False
            return
        # Only should_save is a save event: should_evaluate may be the trainer's eval_strategy.
        if not self.enabled or not control.should_save:
            return
        control.should_save = False
        if self.replay_horizon is not None and step <= self.replay_horizon:
            # Counted before the crash, and it did not save: dropping the event keeps that one
            # count. should_evaluate is left alone, so the user's own evaluation still runs.
            self._pending_checkpoint_evaluation = False
            return
        control.should_evaluate = True
        self._pending_checkpoint_evaluation = True
        self._trigger_count += 1

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.enabled and self._step_is_scheduled(state.global_step):
            # Gate steps join the same native save-event lifecycle as the regular cadence.
            control.should_save = True
        self._redirect_save_to_evaluate(control, state.global_step)
        return control

    def on_epoch_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self._redirect_save_to_evaluate(control, state.global_step)
        return control

    def consume_checkpoint_evaluation(self) -> bool:
        """Returns and clears whether the next evaluation is a save-time one."""
        pending = self._pending_checkpoint_evaluation
        self._pending_checkpoint_evaluation = False
        return pending

    def record_checkpoint_evaluation_decision(self, decision: Any) -> None:
        """Records the trainer's decision; a save becomes durable only in on_save."""
        decision = CheckpointEvaluationDecision.from_dict(decision)
        self.last_evaluated_step = decision.step
        if decision.should_save:
            pending = self._pending_checkpoint_save_step
            if pending is not None and pending != decision.step:
                raise RuntimeError(
                    "checkpoint evaluation attempted to schedule a second save before "
                    "the prior best checkpoint committed")
            self._pending_checkpoint_save_step = decision.step
        if decision.should_stop:
            self._policy_stop_requested = True

    # ---- train begin: restore, then repair ------------------------------------------------------

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        global_step = int(state.global_step)
        self._resumed_run = global_step > 0
        refuse_unsafe_training_args(args, self.score_metric, kwargs)
        args_output_dir = getattr(args, "output_dir", None)
        if self.output_dir is None and args_output_dir:
            self.output_dir = os.fspath(args_output_dir)
        self._is_world_process_zero = bool(getattr(state, "is_world_process_zero", True))
        self._pending_checkpoint_save_step = None
        self._policy_stop_requested = self.policy.state.stop_requested

        def restore() -> Dict[str, Any]:
            if self.output_dir is not None:
                remove_leftover_temp_files(self.output_dir)
            self._restore_own_state_from_checkpoint(global_step)
            loaded = self.load(is_world_process_zero=True)
            return {"loaded": loaded, "policy_state": self.policy.state_dict(),
                    "trigger_count": self._trigger_count, "last_evaluated_step": self.last_evaluated_step}

        # Load inside the same envelope as its result: a rank 0 that rejected a corrupt sidecar
        # before a separate broadcast would leave every worker waiting.
        received = run_on_rank_zero_and_share_outcome(self._is_rank_zero(), SIDECAR_RESTORE, restore)
        policy_state = received.get("policy_state")
        if not isinstance(policy_state, dict):
            raise RuntimeError("checkpoint evaluation sidecar policy restore received no valid policy state")
        self.policy.load_state_dict(policy_state)
        count = received.get("trigger_count")
        if isinstance(count, int) and not isinstance(count, bool):
            self._trigger_count = count  # every rank exports the same state
        # Every rank skips the same replayed save events, or they would disagree on whether an
        # evaluation round (and its collectives) happens.
        step = received.get("last_evaluated_step")
        if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
            raise RuntimeError("checkpoint evaluation sidecar policy restore received no valid last evaluated step")
        self.last_evaluated_step = step
        self.replay_horizon = step

        self._policy_stop_requested = self.policy.state.stop_requested
        if self._policy_stop_requested:
            # CallbackHandler.on_train_begin cleared this flag before calling us: restore the
            # durable stop so the resumed job exits without another save or evaluation.
            control.should_training_stop = True

        def recover() -> Dict[str, Any]:
            self._recover_committed_checkpoint_artifacts()
            if self._is_rank_zero() and self.output_dir is not None:
                drop_link_to_lost_checkpoint(self.output_dir)
                state_path = self._state_path()
                if self._sidecar_abandoned and state_path is not None and os.path.exists(state_path):
                    # Left on disk, a later resume would adopt it once this history rewrote that best
                    # checkpoint with the same step and score (finding 27). Removed, not rewritten: a
                    # rewrite would carry no replay horizon.
                    os.unlink(state_path)
                    fsync_path(self.output_dir)
            self._sidecar_abandoned = False
            return {}

        # A process that died after the native checkpoint write but before on_save left a valid
        # callback state in trainer_state.json: publish its link and sidecar now.
        run_on_rank_zero_and_share_outcome(self._is_rank_zero(), ARTIFACT_RECOVERY, recover)
        return control

    def _restore_own_state_from_checkpoint(self, global_step: int) -> None:
        # Transformers restores callback states only with restore_callback_states_from_checkpoint
        # (default False); a resumed run's global_step is N of its checkpoint-N, so take this
        # callback's saved attributes from that checkpoint's trainer_state.json, as a restore would.
        if self.state_restored or global_step <= 0 or self.output_dir is None:
            return
        path = join_path(join_path(self.output_dir, checkpoint_dir_name(global_step)), TRAINER_STATE_NAME)
        try:
            data = read_file(path)
        except OSError:
            return  # the trainer itself failed or will fail this resume; the sidecar still applies
        found, saved = find_saved_trigger_callback(parse_lenient_json(data))
        if not found or not isinstance(saved, dict):
            return  # no state of this callback: start as configured, as Transformers would
        # The user's current arguments stay; the attributes were counted under the saved ones.
        refuse_changed_settings(_member(saved, "args"), self.policy, global_step)
        self._apply_saved_attributes(_member(saved, "attributes"))

    def _apply_saved_attributes(self, attributes: Any) -> None:
        self._pending_checkpoint_evaluation = truthy(_get(attributes, "pending_checkpoint_evaluation", False))
        self._trigger_count = to_int(_get(attributes, "trigger_count", 0))
        if isinstance(attributes, Mapping) and "checkpoint_eval_state" in attributes:
            self.policy.load_state_dict(attributes["checkpoint_eval_state"])
        self._policy_stop_requested = self.policy.state.stop_requested
        self.state_restored = True

    def _best_checkpoint_is_complete(self) -> bool:
        best_step = self.policy.state.best_step
        return self.output_dir is not None and best_step is not None and is_complete_checkpoint(
            self.output_dir, best_step)

    def _publish_best_checkpoint(self) -> None:
        # Link first, then the sidecar: a reader that sees the new sidecar also finds its link.
        update_final_checkpoint_link(self.output_dir, self.policy.state.best_step, self.save_total_limit)
        self.persist(is_world_process_zero=True)

    def _recover_committed_checkpoint_artifacts(self) -> None:
        s = self.policy.state
        if not self._is_rank_zero() or s.best_step is None or s.best_is_external:
            return
        if not self._best_checkpoint_is_complete():
            return
        # It may be complete only in the page cache (killed between the write of
        # trainer_state.json and its fsync): durable before the durable link names it.
        make_checkpoint_durable(self.output_dir, s.best_step)
        self._publish_best_checkpoint()


    # ---- on_save: commit after the native write ---------------------------------------------------

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        expected_step = self._pending_checkpoint_save_step
        if expected_step is None:
            return control
        self._pending_checkpoint_save_step = None
        if state.global_step != expected_step:
            raise RuntimeError("checkpoint evaluation received an unexpected native save event: "
                               "expected_step=%d, saved_step=%d" % (expected_step, state.global_step))
        # Every rank has finished its own shard and RNG writes once all arrive here; only then
        # may rank 0 point users at the checkpoint.
        barrier()

        def commit() -> Dict[str, Any]:
            self._commit_saved_checkpoint(expected_step)
            return {}

        run_on_rank_zero_and_share_outcome(self._is_rank_zero(), SAVED_CHECKPOINT_PUBLICATION, commit)
        return control

    def _commit_saved_checkpoint(self, step: int) -> None:
        if not self._is_rank_zero():
            return
        best_step = self.policy.state.best_step
        if best_step != step:
            raise RuntimeError("checkpoint evaluation save commit does not match the policy best step: "
                               "saved_step=%d, best_step=%s" % (step, "None" if best_step is None else best_step))
        if not self._best_checkpoint_is_complete():
            directory = "None" if self.output_dir is None else join_path(self.output_dir, checkpoint_dir_name(step))
            raise RuntimeError("checkpoint evaluation expected native Trainer to write the new best "
                               "checkpoint before on_save: " + directory)
        # After _save_checkpoint, not at evaluation time: rotation may just have deleted the old
        # target, and the new one exists only now. Durable before the link names it.
        make_checkpoint_durable(self.output_dir, step)
        self._publish_best_checkpoint()

    # ---- the sidecar ------------------------------------------------------------------------------

    def _next_temp_path(self, path: str) -> str:
        # Unique per write within a process, and per process through the tag; a leftover from a
        # killed writer is removed by rank 0 in on_train_begin.
        self._temp_counter += 1
        tag = self.temp_file_tag if self.temp_file_tag else str(os.getpid())
        return join_path(parent_path(path), "%s%s-%d" % (SIDECAR_TEMP_PREFIX, tag, self._temp_counter))

    def persist(self, *, is_world_process_zero: Optional[bool] = None) -> Optional[Path]:
        """Writes the sidecar atomically on rank 0; returns its path, or None when this rank does not."""
        is_main = self._is_rank_zero() if is_world_process_zero is None else bool(is_world_process_zero)
        path = self._state_path()
        if not is_main or path is None:
            return None
        text = sidecar_text(self.policy, self.last_evaluated_step, self.sidecar_version)
        make_dirs(self.output_dir)
        write_file_atomically(path, self._next_temp_path(path), text.encode("utf-8"))
        self._sidecar_abandoned = False
        return Path(path)

    def load(self, *, is_world_process_zero: Optional[bool] = None) -> bool:
        """Adopts the sidecar on rank 0; False when absent, not newer, or its best is not committed."""
        is_main = self._is_rank_zero() if is_world_process_zero is None else bool(is_world_process_zero)
        path = self._state_path()
        if not is_main or path is None:
            return False
        self._sidecar_abandoned = False
        document = read_sidecar(path)
        if document.shape == MISSING:
            return False
        document.throw_if_malformed(path)
        # A candidate policy keeps a bad sidecar from touching the live one.
        candidate = CheckpointEvaluationPolicy(patience=self.policy.patience, tie_policy=self.policy.tie_policy,
                                               patience_start_step=self.policy.patience_start_step)
        candidate.load_state_dict(document.policy_state())
        verdict = judge_sidecar_adoption(self.output_dir, candidate.state, self.policy.state.evaluation_count)
        if verdict != ADOPTED:
            self._sidecar_abandoned = verdict in (UNCOMMITTED_BEST, BEST_MISMATCH)
            return False
        self.policy.state = candidate.state
        self.last_evaluated_step = document.last_evaluated_step()
        return True

    # ---- ExportableState ---------------------------------------------------------------------------

    def state(self) -> Dict[str, Any]:
        policy = self.policy
        return {
            "args": {
                "enabled": self.enabled,
                "patience": policy.patience,
                "tie_policy": policy.tie_policy,
                "patience_start_step": policy.patience_start_step,
                "gate_steps": list(self.gate_steps),
                "regular_steps": self.regular_steps,
                "save_total_limit": self.save_total_limit,
                "output_dir": self.output_dir,
            },
            "attributes": {
                "pending_checkpoint_evaluation": self._pending_checkpoint_evaluation,
                "trigger_count": self._trigger_count,
                "checkpoint_eval_state": policy.state_dict(),
            },
        }

    @classmethod
    def from_state(cls, state: Any) -> "CheckpointEvaluationTriggerCallback":
        """Rebuilds a callback from state(): the saved args, then the saved attributes."""
        args = _member(state, "args")
        callback = cls(
            enabled=_get(args, "enabled", True), patience=_get(args, "patience", 3),
            tie_policy=_get(args, "tie_policy", "reset"), patience_start_step=_get(args, "patience_start_step", 0),
            gate_steps=_get(args, "gate_steps", None), regular_steps=_get(args, "regular_steps", None),
            save_total_limit=_get(args, "save_total_limit", 1), output_dir=_get(args, "output_dir", None))
        callback._apply_saved_attributes(_member(state, "attributes"))
        return callback


__all__ = [
    "CheckpointEvaluationDecision",
    "CheckpointEvaluationPolicy",
    "CheckpointEvaluationState",
    "CheckpointEvaluationTriggerCallback",
    "RankZeroFailure",
    "TrainingArgumentsRefused",
    "apply_checkpoint_evaluation_decision",
    "run_on_rank_zero_and_share_outcome",
]
