"""transformers.training_args stand-in: the TrainingArguments fields the simulator sends.

Contract: TrainingArguments.from_protocol(fields) accepts exactly the protocol's `args` fields
(output_dir, save_strategy, save_steps, save_total_limit, metric_for_best_model,
greater_is_better, load_best_model_at_end, restore_callback_states_from_checkpoint,
eval_strategy, eval_steps, logging_steps, max_steps) plus the rank identity; an unknown field is a
harness error. Reading any other TrainingArguments attribute raises AttributeError naming it, so
a callback that depends on an unsimulated argument fails loudly instead of reading a default.
"""

import enum

from .. import harness

PROTOCOL_FIELDS = ("output_dir", "save_strategy", "save_steps", "save_total_limit", "metric_for_best_model",
                   "greater_is_better", "load_best_model_at_end", "restore_callback_states_from_checkpoint",
                   "eval_strategy", "eval_steps", "logging_steps", "max_steps")


class IntervalStrategy(str, enum.Enum):
    NO = "no"
    STEPS = "steps"
    EPOCH = "epoch"


class SaveStrategy(str, enum.Enum):
    NO = "no"
    STEPS = "steps"
    EPOCH = "epoch"
    BEST = "best"


class TrainingArguments:
    def __init__(self, output_dir=None, **fields):
        self.output_dir = output_dir
        for name, value in fields.items():
            setattr(self, name, value)

    @classmethod
    def from_protocol(cls, fields, rank, world_size):
        if not isinstance(fields, dict):
            harness.fail(f"protocol: args must be an object, got {fields!r}")
        unknown = sorted(set(fields) - set(PROTOCOL_FIELDS))
        missing = sorted(set(PROTOCOL_FIELDS) - set(fields))
        if unknown or missing:
            harness.fail(f"protocol: args fields unknown {unknown} / missing {missing}")
        values = dict(fields)
        try:
            values["save_strategy"] = SaveStrategy(values["save_strategy"])
            values["eval_strategy"] = IntervalStrategy(values["eval_strategy"])
        except ValueError as exc:
            harness.fail(f"protocol: {exc}")
        return cls(**values, process_index=rank, local_process_index=rank, world_size=world_size,
                   should_save=rank == 0, should_log=rank == 0)

    def __getattr__(self, name):  # only reached for attributes that were never set
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"ckptsim_shim: TrainingArguments.{name} is not simulated "
                             f"(simulated: {', '.join(PROTOCOL_FIELDS)}, process_index, world_size)")

    def __repr__(self):
        return f"TrainingArguments({', '.join(f'{k}={v!r}' for k, v in sorted(vars(self).items()))})"
