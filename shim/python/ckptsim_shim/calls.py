"""Calls: each protocol `fn` checked and handed to the binding; the reply built.

Contract: Dispatcher(binding, rank, world_size)(fn, message) returns the fields of the call's
end: {"t":"return","value":...,"policy_state":...} (with "control" for the calls that take one),
or {"t":"raise","type","kind","message","traceback"} when the callback raised an Exception. A
malformed call (an unknown fn, a missing or mistyped field) is a harness error, as is a return
value that is not JSON. A control the callback returns must have TrainerControl's five fields.
"""

import json
import math
import traceback

from . import harness
from .binding import Hooks
from .standins.trainer_callback import CONTROL_FIELDS, TrainerControl, TrainerState
from .standins.training_args import TrainingArguments

STATE_FIELDS = ("global_step", "is_world_process_zero", "is_local_process_zero", "max_steps", "epoch")


def _field(message, name, check, what):
    if name not in message or not check(message[name]):
        harness.fail(f"protocol: call {message.get('fn')} needs {name} ({what}), got {message.get(name, '<missing>')!r}")
    return message[name]


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _control_from(fields, fn):
    if not isinstance(fields, dict) or sorted(fields) != sorted(CONTROL_FIELDS) \
            or not all(isinstance(v, bool) for v in fields.values()):
        harness.fail(f"protocol: {fn} control must have exactly the boolean fields {list(CONTROL_FIELDS)}: {fields!r}")
    return TrainerControl(**fields)


def _state_from(fields, fn):
    if not isinstance(fields, dict) or sorted(fields) != sorted(STATE_FIELDS):
        harness.fail(f"protocol: {fn} state must have exactly the fields {list(STATE_FIELDS)}: {fields!r}")
    return TrainerState(**fields)


class CallbackReturnedBadControl(TypeError):
    pass


def _control_to(control, fn):
    missing = [name for name in CONTROL_FIELDS if not hasattr(control, name)]
    if missing:
        # Transformers would fail on the next flag it reads; the callback's bug, not the harness's.
        raise CallbackReturnedBadControl(f"{fn} returned {type(control).__name__}, which lacks the "
                                         f"TrainerControl fields {missing}")
    return {name: bool(getattr(control, name)) for name in CONTROL_FIELDS}


class Dispatcher:
    def __init__(self, binding, rank, world_size, session):
        self.binding = binding
        self.rank = rank
        self.world_size = world_size
        self.hooks = Hooks(session)
        self.args = None  # the TrainingArguments of the last on_train_begin, as the trainer keeps them

    def __call__(self, fn, message):
        handler = getattr(self, "_fn_" + fn, None)
        if handler is None:
            harness.fail(f"protocol: unknown call fn {fn!r}")
        prepared = handler(message)  # checks the fields; returns (action, takes_control)
        action, takes_control = prepared
        try:
            value, control = action()
            reply = {"t": "return", "value": value}
            if takes_control:
                reply["control"] = _control_to(control, fn)
            reply["policy_state"] = self.binding.policy_state()
        except Exception as exc:  # the callback's (or its binding's) exception ends the call
            return {"t": "raise", "type": type(exc).__name__, "kind": self.binding.classify(exc),
                    "message": str(exc), "traceback": traceback.format_exc()[-65536:]}
        return reply  # a value that is not JSON is a harness error when the session sends it

    # ---- one method per fn: check the fields, return the action ----------------------------------

    def _fn_construct(self, message):
        kwargs = _field(message, "kwargs", lambda v: isinstance(v, dict), "an object")
        settings = self._process_settings(message)
        def action():
            self.binding.construct(dict(kwargs))
            self.binding.apply_process_settings(settings)
            return None, None
        return action, False

    def _fn_restore_state(self, message):
        saved = _field(message, "saved", lambda v: isinstance(v, dict), "an object")
        settings = self._process_settings(message)
        def action():
            self.binding.restore_state(saved)
            self.binding.apply_process_settings(settings)
            return None, None
        return action, False

    @staticmethod
    def _process_settings(message):
        if "process_settings" not in message:
            return {}
        return _field(message, "process_settings", lambda v: isinstance(v, dict), "an object")

    def _fn_on_train_begin(self, message):
        self.args = TrainingArguments.from_protocol(message.get("args"), self.rank, self.world_size)
        return self._event("on_train_begin", message)

    def _fn_on_step_end(self, message):
        return self._event("on_step_end", message)

    def _fn_on_epoch_end(self, message):
        return self._event("on_epoch_end", message)

    def _fn_on_save(self, message):
        return self._event("on_save", message)

    def _event(self, fn, message):
        if self.args is None:
            harness.fail(f"protocol: {fn} before on_train_begin: no TrainingArguments to pass")
        state = _state_from(message.get("state"), fn)
        control = _control_from(message.get("control"), fn)
        # What the trainer hands every callback as keyword arguments besides args/state/control
        # (Transformers passes model, optimizer, ...; the simulator adds what it knows of itself).
        kwargs = _field(message, "kwargs", lambda v: isinstance(v, dict), "an object") if "kwargs" in message else {}
        return (lambda: (None, self.binding.event(fn, self.args, state, control, **kwargs))), True

    def _fn_baseline(self, message):
        score = _field(message, "score", _number, "a finite number")
        step = _field(message, "step", _integer, "an integer")
        def action():
            self.binding.baseline(score, step)  # the policy's state is not the call's value
            return None, None
        return action, False

    def _fn_consume_checkpoint_evaluation(self, message):
        def action():
            value = self.binding.consume()
            if not isinstance(value, bool):
                raise TypeError(f"consume_checkpoint_evaluation returned {value!r}, not a bool")
            return value, None
        return action, False

    def _fn_pending_save_step(self, message):
        def action():
            value = self.binding.pending_save_step()
            if value is not None and not _integer(value):
                raise TypeError(f"the pending save step is {value!r}, not an integer or None")
            return value, None
        return action, False

    def _fn_evaluate(self, message):
        score = _field(message, "score", _number, "a finite number")
        step = _field(message, "step", _integer, "an integer")
        control = _control_from(message.get("control"), "evaluate")

        def action():
            new_control, decision = self.binding.evaluate(score, step, control, self.hooks)
            return {"decision": decision}, new_control
        return action, True

    def _fn_export_state(self, message):
        return (lambda: (self.binding.export_state(), None)), False
