"""transformers.trainer_callback stand-in: TrainerCallback, ExportableState, TrainerControl,
TrainerState, CallbackHandler and call_event.

Contract: the classes have Transformers' names, fields and no-op events, so a callback written
against Transformers subclasses them unchanged. call_event has CallbackHandler.call_event's
semantics: each callback's event gets (args, state, control) plus the trainer's objects as None
keywords, and a returned non-None control replaces the current one. The handler's own flag resets
(on_step_begin clearing should_save, ...) are the simulator's, which sends the control after them.
"""

import dataclasses
from typing import Any, Dict, List, Optional, Union

__all__ = ["TrainerCallback", "ExportableState", "TrainerControl", "TrainerState", "CallbackHandler",
           "call_event", "EVENTS"]

# Every TrainerCallback event of current Transformers releases.
EVENTS = ("on_init_end", "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_step_begin",
          "on_pre_optimizer_step", "on_optimizer_step", "on_substep_end", "on_step_end", "on_evaluate",
          "on_predict", "on_save", "on_log", "on_prediction_step", "on_push_begin")

# The trainer objects Transformers passes as keywords; the simulator has none of them.
_TRAINER_OBJECTS = ("model", "processing_class", "optimizer", "lr_scheduler", "train_dataloader",
                    "eval_dataloader")


class ExportableState:
    def state(self) -> dict:
        raise NotImplementedError("You must implement a `state` function to utilize this class.")

    @classmethod
    def from_state(cls, state):
        instance = cls(**state["args"])
        for name, value in state["attributes"].items():
            setattr(instance, name, value)
        return instance


@dataclasses.dataclass
class TrainerControl(ExportableState):
    should_training_stop: bool = False
    should_epoch_stop: bool = False
    should_save: bool = False
    should_evaluate: bool = False
    should_log: bool = False

    def _new_training(self):
        self.should_training_stop = False

    def _new_epoch(self):
        self.should_epoch_stop = False

    def _new_step(self):
        self.should_save = False
        self.should_evaluate = False
        self.should_log = False

    def state(self) -> dict:
        return {"args": dataclasses.asdict(self), "attributes": {}}


CONTROL_FIELDS = tuple(f.name for f in dataclasses.fields(TrainerControl))


@dataclasses.dataclass
class TrainerState:
    epoch: Optional[float] = None
    global_step: int = 0
    max_steps: int = 0
    logging_steps: int = 500
    eval_steps: int = 500
    save_steps: int = 500
    train_batch_size: Optional[int] = None
    num_train_epochs: int = 0
    num_input_tokens_seen: int = 0
    total_flos: float = 0
    log_history: List[Dict[str, float]] = None
    best_metric: Optional[float] = None
    best_global_step: Optional[int] = None
    best_model_checkpoint: Optional[str] = None
    is_local_process_zero: bool = True
    is_world_process_zero: bool = True
    is_hyper_param_search: bool = False
    trial_name: Optional[str] = None
    trial_params: Dict[str, Union[str, float, int, bool]] = None
    stateful_callbacks: List[Any] = None

    def __post_init__(self):
        if self.log_history is None:
            self.log_history = []
        if self.stateful_callbacks is None:
            self.stateful_callbacks = {}


class TrainerCallback:
    pass


def _make_event(name):
    def event(self, args, state, control, **kwargs):
        pass

    event.__name__ = event.__qualname__ = name
    return event


for _name in EVENTS:
    setattr(TrainerCallback, _name, _make_event(_name))
    setattr(getattr(TrainerCallback, _name), "__qualname__", f"TrainerCallback.{_name}")


def call_event(callbacks, event, args, state, control, **kwargs):
    for callback in callbacks:
        keywords = {name: None for name in _TRAINER_OBJECTS}
        keywords.update(kwargs)
        result = getattr(callback, event)(args, state, control, **keywords)
        if result is not None:
            control = result
    return control


class CallbackHandler(TrainerCallback):
    """The handler's dispatch only: the trainer that owns it is the simulator."""

    def __init__(self, callbacks=()):
        self.callbacks = list(callbacks)

    def add_callback(self, callback):
        self.callbacks.append(callback() if isinstance(callback, type) else callback)

    def call_event(self, event, args, state, control, **kwargs):
        return call_event(self.callbacks, event, args, state, control, **kwargs)
