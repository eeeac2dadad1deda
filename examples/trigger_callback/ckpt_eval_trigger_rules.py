"""The trigger callback's refusals and argument rules, word for word as the C++ port's.

Contract: restates `policy/trigger/trigger_callback_refusals.cpp` (TrainingArguments under which
no callback keeps its guarantees: `TrainingArgumentsRefused`, a ValueError naming the setting
and the fix), the constructor's validation (`trigger_callback.cpp`) and the coercion of saved
arguments (`trigger_callback_state.cpp`), and `refuse_changed_settings`: a resume must not
re-judge a checkpoint's counts under other policy settings. Pure: reads its arguments only.
"""

import os
from typing import Any, List, Mapping, Optional, Tuple

from ckpt_eval_core import CheckpointEvaluationPolicy
from ckpt_eval_values import to_int, to_str


class TrainingArgumentsRefused(ValueError):
    """on_train_begin's refusal of unsafe TrainingArguments; the message names the fix."""


def restore_arguments(gate_steps: Any, regular_steps: Any, save_total_limit: Any,
                      output_dir: Any) -> Tuple[List[int], Optional[int], int, Optional[str]]:
    """The constructor's arguments, coerced and validated in the port's order."""
    gates: List[int] = []
    if gate_steps is not None:
        if not isinstance(gate_steps, (list, tuple)):
            raise ValueError("checkpoint evaluation gate_steps must contain positive integers")
        gates = [to_int(step) for step in gate_steps]
    regular = None if regular_steps is None else to_int(regular_steps)
    try:
        limit = to_int(save_total_limit)
    except ValueError:
        raise ValueError("checkpoint evaluation save_total_limit must be positive") from None
    if output_dir is not None:
        output_dir = os.fspath(output_dir) if isinstance(output_dir, (str, os.PathLike)) else to_str(output_dir)
    if limit <= 0:
        raise ValueError("checkpoint evaluation save_total_limit must be positive")
    if any(step <= 0 for step in gates):
        raise ValueError("checkpoint evaluation gate_steps must contain positive integers")
    if regular is not None and regular <= 0:
        raise ValueError("checkpoint evaluation regular_steps must be positive")
    return sorted(set(gates)), regular, limit, output_dir


def _text(value: Any) -> str:
    # Transformers' strategies are str enums; a plain string works as well.
    value = getattr(value, "value", value)
    return "" if value is None else str(value)


def refuse_unsafe_training_args(args: Any, score_metric: str, extra: Mapping[str, Any]) -> None:
    """Raises TrainingArgumentsRefused for the settings the port refuses at on_train_begin.

    The last two rules need what the trainer knows around its arguments (the classes stored as
    lists in stateful_callbacks, whether a refresh appends to them, and on a resume the configured
    stateful classes the checkpoint does not store): read from `args` or from the event's keyword
    arguments, and absent means "nothing to refuse".
    """
    if _text(getattr(args, "save_strategy", "steps")) == "best":
        raise TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with save_strategy=\"best\": Transformers then saves only on "
            "its own new best metric, never on this callback's save events; use save_strategy=\"steps\" "
            "or \"epoch\"")
    load_best = bool(getattr(args, "load_best_model_at_end", False))
    metric = _text(getattr(args, "metric_for_best_model", None))
    # TrainingArguments' post-init: load_best_model_at_end tracks "loss" when no metric is set,
    # and greater_is_better follows the metric. Values already post-initialised pass through.
    tracked = metric if metric or not load_best else "loss"
    greater = getattr(args, "greater_is_better", None)
    greater = (not tracked.endswith("loss")) if greater is None else bool(greater)
    limit = getattr(args, "save_total_limit", None)
    limit = 0 if limit is None else int(limit)
    trainer_tracks_best = load_best or bool(tracked)
    same_best = tracked == score_metric and greater
    if trainer_tracks_best and not same_best and limit >= 1:
        raise TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with metric_for_best_model=\"" + tracked +
            "\" beside save_total_limit: Transformers' rotation keeps its own best_model_checkpoint, "
            "another than final_checkpoint's target, which a crash can make the callback relink "
            "to; set metric_for_best_model=\"" + score_metric + "\" with greater_is_better=True, or unset it")
    if trainer_tracks_best and limit == 1:
        raise TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with save_total_limit=1 and metric_for_best_model or "
            "load_best_model_at_end: Transformers deletes every checkpoint but its own "
            "best_model_checkpoint, which can be another than final_checkpoint's target; set "
            "save_total_limit >= 2 (>= 3 beside eval_strategy \"steps\" or \"epoch\") or unset "
            "metric_for_best_model and load_best_model_at_end")
    # An evaluation of the trainer's own can leave best_model_checkpoint on an older checkpoint, which
    # rotation under a limit of 2 keeps beside the newest instead of final_checkpoint's target.
    eval_strategy = _text(getattr(args, "eval_strategy", None)) or "no"
    if trainer_tracks_best and eval_strategy != "no" and limit == 2:
        raise TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with save_total_limit=2 beside eval_strategy=\"" + eval_strategy +
            "\" and the trainer's own best: an evaluation of the trainer's own can leave best_model_checkpoint "
            "on an older checkpoint, which rotation keeps beside the newest, deleting final_checkpoint's "
            "target before the new best is committed; set save_total_limit >= 3, or eval_strategy=\"no\"")
    several = getattr(args, "stateful_classes_with_several_callbacks",
                      extra.get("stateful_classes_with_several_callbacks", ()))
    appends = getattr(args, "refresh_appends_duplicate_states", extra.get("refresh_appends_duplicate_states", True))
    if bool(getattr(args, "restore_callback_states_from_checkpoint", False)) and appends and several:
        name = list(several)[0]
        raise TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with restore_callback_states_from_checkpoint=True and "
            "several " + name + " callbacks: Transformers appends every save's states to "
            "stateful_callbacks[\"" + name + "\"] (PR #33875) and a resume restores the first ones, saved at "
            "the start of training; set restore_callback_states_from_checkpoint=False (this callback then "
            "restores its own state) or pass one " + name + " callback")
    lacking = getattr(args, "stateful_classes_the_checkpoint_lacks",
                      extra.get("stateful_classes_the_checkpoint_lacks", ()))
    if appends and lacking:
        name = list(lacking)[0]
        raise TrainingArgumentsRefused(
            "checkpoint evaluation cannot resume with " + name + " callbacks the checkpoint does not store: "
            "Transformers' _save_checkpoint refreshes state.stateful_callbacks[\"" + name + "\"] and raises "
            "KeyError on rank 0 at the first save, after the weights, while the other ranks wait; resume with "
            "the callbacks the checkpoint was saved with, or refresh with this package's "
            "refresh_stateful_callbacks, which re-exports stateful_callbacks from the live callbacks")


def _saved_settings(saved_args: Any) -> Optional[tuple]:
    # The settings a checkpoint's saved args hold, or None when they cannot be read (the
    # policy's own load then judges the state).
    get = saved_args.get if isinstance(saved_args, Mapping) else (lambda key, fallback: fallback)
    try:
        return CheckpointEvaluationPolicy(patience=get("patience", 3), tie_policy=get("tie_policy", "reset"),
                                          patience_start_step=get("patience_start_step", 0)).settings()
    except ValueError:
        return None


def _describe(settings: tuple) -> str:
    return "patience=%d, tie_policy=%s, patience_start_step=%d" % settings


def refuse_changed_settings(saved_args: Any, policy: CheckpointEvaluationPolicy, checkpoint_step: int) -> None:
    """Raises ValueError naming every changed setting, both values and the fix."""
    saved = _saved_settings(saved_args)
    now = policy.settings()
    if saved is None or saved == now:
        return
    changed = [name for name, before, after in zip(("patience", "tie_policy", "patience_start_step"), saved, now)
               if before != after]
    raise ValueError(
        "checkpoint evaluation cannot resume from checkpoint-%d with a changed %s: it was saved with %s, "
        "this run is configured with %s; resume with the saved settings, or start in a fresh output_dir to "
        "use the new ones" % (checkpoint_step, ", ".join(changed), _describe(saved), _describe(now)))
