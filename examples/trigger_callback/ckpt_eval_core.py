"""The checkpoint evaluation policy: best-only retention with patience, as the C++ port decides.

Contract: restates `policy/core/*` (state, decision, policy, tie policies, state_dict format)
and `policy/trigger/apply_decision.*`. `observe()` records one score and returns the save/stop
decision with the port's reason strings; rejected input raises `ValueError` and changes nothing,
observing after a stop raises `RuntimeError`. `state_dict()`/`load_state_dict()` are the port's
JSON format (version 1), and a load refuses other settings or versions. No I/O.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from ckpt_eval_values import (
    INT64_MAX,
    check_finite_score,
    coerce_finite_score,
    coerce_step,
    equals_int,
    to_float,
    to_int,
    to_str,
    truthy,
)

STATE_VERSION = 1
TIE_POLICIES = ("reset", "ignore", "stop", "count")
REASONS = (
    "initial", "improved", "patience_warmup_lower", "patience_warmup_tie", "lower",
    "patience_exhausted", "tie_reset", "tie_stop", "tie_counted", "tie_ignored",
)
# The order the port's from_dict lists missing fields in (sorted).
_REQUIRED_DECISION_FIELDS = (
    "best_score", "best_step", "evaluation_count", "lower_score_streak", "reason", "score",
    "should_save", "should_stop", "step",
)


def parse_tie_policy(text: Any) -> str:
    """str(text).strip().lower(), which must name a tie policy."""
    # ASCII-only lower(), as the port's std::tolower: "\u212a" (Kelvin) is no "k" there.
    name = "".join(c.lower() if c.isascii() else c for c in to_str(text).strip())
    if name not in TIE_POLICIES:
        raise ValueError("tie_policy must be one of: reset, ignore, stop, count")
    return name


@dataclass
class CheckpointEvaluationState:
    """What the sidecar and trainer_state.json carry so a resumed run decides as the original."""

    best_score: Optional[float] = None
    best_step: Optional[int] = None
    # With tie_policy "count" this is the streak of non-improvements, ties included.
    lower_score_streak: int = 0
    evaluation_count: int = 0
    # A stop must survive a crash, or a resumed job trains another interval before noticing.
    stop_requested: bool = False
    # The best is a step-zero reference score, never an output_dir/checkpoint-N.
    best_is_external: bool = False


@dataclass
class CheckpointEvaluationDecision:
    """One evaluation's result; to_dict() is the broadcast (wire) form."""

    score: float
    step: int
    should_save: bool
    should_stop: bool
    reason: str
    best_score: float
    best_step: int
    lower_score_streak: int
    evaluation_count: int
    best_is_external: bool = False

    @property
    def improved(self) -> bool:
        return self.should_save

    def to_dict(self) -> Dict[str, Any]:
        return {
            "score": self.score,
            "step": self.step,
            "should_save": self.should_save,
            "should_stop": self.should_stop,
            "reason": self.reason,
            "best_score": self.best_score,
            "best_step": self.best_step,
            "lower_score_streak": self.lower_score_streak,
            "evaluation_count": self.evaluation_count,
            "best_is_external": self.best_is_external,
        }

    @classmethod
    def from_dict(cls, payload: Any) -> "CheckpointEvaluationDecision":
        if isinstance(payload, CheckpointEvaluationDecision):
            return dataclasses.replace(payload)
        if not isinstance(payload, Mapping):
            raise ValueError("checkpoint evaluation decision must be a mapping")
        missing = [name for name in _REQUIRED_DECISION_FIELDS if name not in payload]
        if missing:
            raise ValueError("checkpoint evaluation decision missing fields: " + repr(missing))
        # Converted in the port's order, so the first invalid field is the one reported.
        score = to_float(payload["score"])
        step = to_int(payload["step"])
        should_save = truthy(payload["should_save"])
        should_stop = truthy(payload["should_stop"])
        reason = to_str(payload["reason"])
        if reason not in REASONS:
            raise ValueError("checkpoint evaluation decision has an unknown reason: " + repr(reason))
        return cls(
            score=score, step=step, should_save=should_save, should_stop=should_stop, reason=reason,
            best_score=to_float(payload["best_score"]), best_step=to_int(payload["best_step"]),
            lower_score_streak=to_int(payload["lower_score_streak"]),
            evaluation_count=to_int(payload["evaluation_count"]),
            best_is_external="best_is_external" in payload and truthy(payload["best_is_external"]),
        )


def _state_from_mapping(raw: Mapping[str, Any]) -> CheckpointEvaluationState:
    # The port's order of coercion: counters, flags, then the best (validated afterwards).
    best_score = raw.get("best_score", None)
    best_step = raw.get("best_step", None)
    state = CheckpointEvaluationState(
        lower_score_streak=to_int(raw.get("lower_score_streak", 0)),
        evaluation_count=to_int(raw.get("evaluation_count", 0)),
        stop_requested=truthy(raw.get("stop_requested", False)),
        best_is_external=truthy(raw.get("best_is_external", False)),
    )
    if best_score is not None:
        # Held as a float, as the port's double: the sidecar then writes 1.0, never 1.
        state.best_score = coerce_finite_score(best_score)
    if best_step is not None:
        state.best_step = coerce_step(best_step)
    return state


def _state_to_dict(state: CheckpointEvaluationState) -> Dict[str, Any]:
    return {
        "best_score": state.best_score,
        "best_step": state.best_step,
        "lower_score_streak": state.lower_score_streak,
        "evaluation_count": state.evaluation_count,
        "stop_requested": state.stop_requested,
        "best_is_external": state.best_is_external,
    }


class CheckpointEvaluationPolicy:
    """Best-only retention with patience.

    The first finite score establishes the initial checkpoint; later scores save only when
    strictly greater than the best. Strictly lower scores lengthen the streak and stop at
    `patience`. Equal scores follow the tie policy and never replace the best. Evaluations
    before `patience_start_step` may improve the best but never consume patience.
    """

    def __init__(self, *, patience: Any = 3, tie_policy: Any = "reset", patience_start_step: Any = 0,
                 state: Optional[CheckpointEvaluationState] = None) -> None:
        try:
            self.patience = to_int(patience)
        except ValueError:
            raise ValueError("patience must be a positive integer") from None
        if self.patience <= 0:
            raise ValueError("patience must be a positive integer, got %d" % self.patience)
        self.tie_policy = parse_tie_policy(tie_policy)
        try:
            self.patience_start_step = to_int(patience_start_step)
        except ValueError:
            raise ValueError("patience_start_step must be a non-negative integer") from None
        if self.patience_start_step < 0:
            raise ValueError("patience_start_step must be a non-negative integer")
        if state is None:
            state = CheckpointEvaluationState()
        else:
            # A caller's state is taken through the same coercions a loaded one gets, so the
            # sidecar writes it exactly as the port would.
            state = _state_from_mapping(_state_to_dict(state))
        self._validate_state(state)
        self.state = state

    # ---- rules ------------------------------------------------------------------------------

    @staticmethod
    def _validate_state(state: CheckpointEvaluationState) -> None:
        if state.best_score is not None:
            check_finite_score(state.best_score)
        if state.best_step is not None and state.best_step < 0:
            raise ValueError("checkpoint evaluation step must be a non-negative integer")
        if state.best_score is None and state.best_step is not None:
            raise ValueError("checkpoint evaluation state has best_step without best_score")
        if state.best_score is not None and state.best_step is None:
            raise ValueError("checkpoint evaluation state has best_score without best_step")
        if state.lower_score_streak < 0 or state.evaluation_count < 0:
            raise ValueError("checkpoint evaluation counters cannot be negative")
        if state.evaluation_count > 0 and state.best_score is None:
            raise ValueError("checkpoint evaluation state has completed evaluations without a best score")
        if state.stop_requested and state.best_score is None:
            raise ValueError("checkpoint evaluation stop state has no best score")
        if state.best_is_external and state.best_score is None:
            raise ValueError("external checkpoint evaluation baseline has no score")

    def observe(self, score: Any, *, step: Any) -> CheckpointEvaluationDecision:
        """Records `score` at `step` and returns the save/stop decision."""
        score = coerce_finite_score(score)
        step = coerce_step(step)
        s = self.state
        if s.stop_requested:
            raise RuntimeError(
                "checkpoint evaluation policy already requested training stop; "
                "create a new run instead of observing more scores")
        # The port's counters are int64: a state this large cannot be from a real run.
        if s.evaluation_count == INT64_MAX or s.lower_score_streak == INT64_MAX:
            raise ValueError("checkpoint evaluation counters cannot exceed %d" % INT64_MAX)
        s.evaluation_count += 1

        first = s.best_score is None
        if first or score > s.best_score:
            s.best_score = score
            s.best_step = step
            s.lower_score_streak = 0
            s.stop_requested = False
            s.best_is_external = False
            return self._decision(score, step, True, False, "initial" if first else "improved")

        lower = score < s.best_score
        if step < self.patience_start_step:
            # Health checks before the boundary: a transient drop or plateau costs no patience.
            s.lower_score_streak = 0
            s.stop_requested = False
            return self._decision(score, step, False, False,
                                  "patience_warmup_lower" if lower else "patience_warmup_tie")
        if lower:
            return self._count_toward_patience(score, step, "lower")
        if self.tie_policy == "reset":
            s.lower_score_streak = 0
            s.stop_requested = False
            return self._decision(score, step, False, False, "tie_reset")
        if self.tie_policy == "stop":
            s.stop_requested = True
            return self._decision(score, step, False, True, "tie_stop")
        if self.tie_policy == "count":
            return self._count_toward_patience(score, step, "tie_counted")
        s.stop_requested = False
        return self._decision(score, step, False, False, "tie_ignored")

    def _count_toward_patience(self, score: float, step: int, not_yet: str) -> CheckpointEvaluationDecision:
        s = self.state
        s.lower_score_streak += 1
        s.stop_requested = s.lower_score_streak >= self.patience
        return self._decision(score, step, False, s.stop_requested,
                              "patience_exhausted" if s.stop_requested else not_yet)

    def _decision(self, score: float, step: int, should_save: bool, should_stop: bool,
                  reason: str) -> CheckpointEvaluationDecision:
        s = self.state
        return CheckpointEvaluationDecision(
            score=score, step=step, should_save=should_save, should_stop=should_stop, reason=reason,
            best_score=s.best_score, best_step=s.best_step, lower_score_streak=s.lower_score_streak,
            evaluation_count=s.evaluation_count, best_is_external=s.best_is_external)

    def establish_external_baseline(self, score: Any, *, step: Any = 0) -> CheckpointEvaluationState:
        """A run-local reference score (step-zero validation), not counted as an evaluation.

        Once the state holds a best (after a resume, say) it is kept: the durable reference wins.
        """
        score = coerce_finite_score(score)
        step = coerce_step(step)
        s = self.state
        if s.best_score is not None:
            return s
        s.best_score = score
        s.best_step = step
        s.lower_score_streak = 0
        s.stop_requested = False
        s.best_is_external = True
        return s

    # ---- the JSON format ----------------------------------------------------------------------

    def state_dict(self) -> Dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "patience": self.patience,
            "tie_policy": self.tie_policy,
            "patience_start_step": self.patience_start_step,
            "state": _state_to_dict(self.state),
        }

    @property
    def checkpoint_eval_state(self) -> Dict[str, Any]:
        return self.state_dict()

    @checkpoint_eval_state.setter
    def checkpoint_eval_state(self, payload: Mapping[str, Any]) -> None:
        self.load_state_dict(payload)

    def load_state_dict(self, payload: Any) -> None:
        """Restores a state_dict() (or a flat state); refuses other versions or settings."""
        if not isinstance(payload, Mapping):
            raise ValueError("checkpoint evaluation state must be a mapping")
        if "version" in payload and not equals_int(payload["version"], STATE_VERSION):
            raise ValueError("unsupported checkpoint evaluation state version: " + repr(payload["version"]))
        if "patience" in payload and to_int(payload["patience"]) != self.patience:
            raise ValueError("resumed checkpoint evaluation patience does not match configuration")
        if "tie_policy" in payload:
            try:
                same = parse_tie_policy(payload["tie_policy"]) == self.tie_policy
            except ValueError:
                same = False  # not a tie policy at all, so certainly not ours
            if not same:
                raise ValueError("resumed checkpoint evaluation tie_policy does not match configuration")
        if "patience_start_step" in payload and to_int(payload["patience_start_step"]) != self.patience_start_step:
            raise ValueError("resumed checkpoint evaluation patience_start_step does not match configuration")
        raw_state = payload["state"] if "state" in payload else payload
        if not isinstance(raw_state, Mapping):
            raise ValueError("checkpoint evaluation state payload must contain a state mapping")
        state = _state_from_mapping(raw_state)
        self._validate_state(state)
        self.state = state

    @classmethod
    def from_state_dict(cls, payload: Any) -> "CheckpointEvaluationPolicy":
        if not isinstance(payload, Mapping):
            raise ValueError("checkpoint evaluation state must be a mapping")
        policy = cls(patience=payload.get("patience", 3), tie_policy=payload.get("tie_policy", "reset"),
                     patience_start_step=payload.get("patience_start_step", 0))
        policy.load_state_dict(payload)
        return policy

    def settings(self) -> tuple:
        return (self.patience, self.tie_policy, self.patience_start_step)


def apply_checkpoint_evaluation_decision(control: Any, decision: Any) -> Any:
    """Turns a decision into the trainer's flags: veto a non-improving save, stop when due.

    should_evaluate is always cleared: the evaluation did not go through Trainer.evaluate, and
    the epoch-end _maybe_log_save_evaluate would otherwise evaluate the same save event again.
    A malformed mapping raises ValueError before any flag changes.
    """
    decision = CheckpointEvaluationDecision.from_dict(decision)
    control.should_save = decision.should_save
    control.should_evaluate = False
    if decision.should_stop:
        control.should_training_stop = True
    return control
