"""Stand-in modules for torch and transformers, put into sys.modules before the user's import.

Contract: install(rank, world_size, collective) registers `torch`, `torch.distributed`,
`transformers`, `transformers.trainer_callback`, `transformers.training_args`,
`transformers.trainer_utils`, `transformers.utils` and `transformers.utils.logging`. A callback
subclasses the stand-in TrainerCallback as it subclasses the real one, so its `ImportError`
fallbacks are not taken. Anything not simulated fails loudly: an attribute access raises
AttributeError naming it (hasattr() still answers False), `from transformers import X` and
`import torch.X` raise ImportError naming it, and an unknown torch.distributed function is a
harness error. set_identity(rank, world_size) moves an installed process into another place in
the world (a zygote's child, after the fork).
"""

import importlib.abc
import importlib.machinery
import sys
import types

from . import hf_logging, torch_distributed, trainer_callback, trainer_utils, training_args

_ROOTS = ("torch", "transformers")
_world = torch_distributed.World(0, 1)


class NotSimulatedFinder(importlib.abc.MetaPathFinder):
    """Answers every torch.* / transformers.* import that is not a stand-in with ImportError.
    Not ModuleNotFoundError: `from pkg import X` swallows that one and loses the message."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in _ROOTS and fullname not in sys.modules:
            raise ImportError(f"ckptsim_shim: {fullname} is not simulated (the stand-ins cover "
                              "torch.distributed's collectives and transformers' callback API)", name=fullname)
        return None


def _module(name, attributes, package=True, strict_attributes=False):
    module = types.ModuleType(name, f"ckptsim_shim stand-in for {name}")
    module.__dict__.update(attributes)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=package)
    if package:
        module.__path__ = []  # a package, so `from pkg import X` consults the finder for X

    def __getattr__(attribute):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        if strict_attributes:
            strict_attributes(f"{name}.{attribute}")
        raise AttributeError(f"ckptsim_shim: {name}.{attribute} is not simulated")

    module.__getattr__ = __getattr__
    for value in attributes.values():
        if isinstance(value, type) and value.__module__.startswith("ckptsim_shim."):
            value.__module__ = name
    sys.modules[name] = module
    return module


def install(rank, world_size, collective):
    """`collective(op, fields)` makes one `coll` request."""
    set_identity(rank, world_size)
    distributed = torch_distributed.make(_world, collective)
    dist = _module("torch.distributed", distributed, strict_attributes=torch_distributed.not_simulated)
    torch = _module("torch", {"distributed": dist, "__version__": "0.0+ckptsim"})
    del torch  # reachable as sys.modules["torch"]
    callback_api = {name: getattr(trainer_callback, name) for name in trainer_callback.__all__}
    tc = _module("transformers.trainer_callback", callback_api, package=False)
    ta = _module("transformers.training_args", {"TrainingArguments": training_args.TrainingArguments,
                                                "IntervalStrategy": training_args.IntervalStrategy,
                                                "SaveStrategy": training_args.SaveStrategy}, package=False)
    tu = _module("transformers.trainer_utils", {name: getattr(trainer_utils, name) for name in trainer_utils.__all__},
                 package=False)
    logging_module = _module("transformers.utils.logging",
                             {name: getattr(hf_logging, name) for name in hf_logging.__all__}, package=False)
    utils = _module("transformers.utils", {"logging": logging_module})
    _module("transformers", {**callback_api, "TrainingArguments": training_args.TrainingArguments,
                             "trainer_callback": tc, "training_args": ta, "trainer_utils": tu,
                             "utils": utils, "logging": logging_module, "__version__": "0.0+ckptsim"})
    sys.meta_path.insert(0, NotSimulatedFinder())


def set_identity(rank, world_size):
    _world.rank, _world.world_size = rank, world_size
