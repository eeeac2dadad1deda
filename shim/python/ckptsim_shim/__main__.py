"""Command line: `serve` runs one callback process; `selftest` checks the interposition.

  python3 -m ckptsim_shim serve [--path DIR]... [--binding FILE_OR_MODULE:Class] module:Class
  python3 -m ckptsim_shim selftest

Contract for `serve` (the order matters): open the channel on CKPTSIM_FD first, so every later
failure is reported as `harness_error`; check the environment (PYTHONHASHSEED, CKPTSIM_*);
install the virtual file system and the audit tripwire, then determinism, then the stand-ins,
all BEFORE the user's module is imported; prepend the --path folders to sys.path in order;
import module:Class and the binding; send `ready` with the source hashes; serve calls until
`shutdown`. Exit status: 0 after shutdown, 2 for a usage error before the channel exists, 3 for a
harness error.

With CKPTSIM_ZYGOTE=1 `serve` is a zygote (fork server, zygote.py): the same setup without the
identity variables, then one child per `spawn` on the control socket CKPTSIM_FD, each serving
calls as a cold `serve` with that identity would.
"""

import argparse
import faulthandler
import importlib
import importlib.util
import os
import platform
import sys
import traceback

from . import PROTOCOL_VERSION, SHIM_VERSION, determinism, harness, standins, tripwire, zygote
from .binding import Binding, BindingContext
from .calls import Dispatcher
from .protocol import Channel, Session
from .sources import hash_sources
from .standins.trainer_callback import EVENTS, TrainerCallback
from .vfs import Vfs
from .vpaths import DEFAULT_VROOT, Router

DEFAULT_BINDING = "ckptsim_shim.binding:Binding"


def _env_int(name, minimum):
    value = os.environ.get(name)
    if value is None or not value.lstrip("-").isdigit() or int(value) < minimum:
        harness.fail(f"environment: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _split_target(text, what):
    if ":" not in text:
        harness.fail(f"{what} must be MODULE:Class or FILE.py:Class, got {text!r}")
    where, _, name = text.rpartition(":")
    return where, name


def _load_binding_class(spec):
    where, name = _split_target(spec, "--binding")
    if where.endswith(".py") or os.sep in where:
        path = os.path.abspath(where)
        module_name = "ckptsim_binding_" + os.path.splitext(os.path.basename(path))[0]
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        if module_spec is None:
            harness.fail(f"--binding: cannot load {path}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    binding_class = getattr(module, name, None)
    if not (isinstance(binding_class, type) and issubclass(binding_class, Binding)):
        harness.fail(f"--binding {spec}: {name} is not a subclass of ckptsim_shim.binding.Binding")
    return binding_class


def _identity():
    world_size = _env_int("CKPTSIM_WORLD_SIZE", 1)
    rank = _env_int("CKPTSIM_RANK", 0)
    if rank >= world_size:
        harness.fail(f"environment: CKPTSIM_RANK {rank} outside a world of {world_size}")
    return rank, world_size, _env_int("CKPTSIM_INCARNATION", 1), _env_int("CKPTSIM_STREAM", 0)


def overrides(cls):
    """The TrainerCallback events `cls` redefines (as the handshake reports them)."""
    return sorted(name for name in EVENTS
                  if getattr(cls, name, None) is not getattr(TrainerCallback, name))


def serve(arguments):
    fd_text = os.environ.get("CKPTSIM_FD")
    if fd_text is None or not fd_text.isdigit():
        sys.stderr.write(f"ckptsim_shim serve: CKPTSIM_FD must name the protocol fd, got {fd_text!r}\n")
        return 2
    faulthandler.enable()
    session = Session(Channel(int(fd_text)), on_now_ms=determinism.set_now_ms)
    session.install_failure_handler()
    determinism.set_clock_source(session.fetch_now)
    if os.environ.get("CKPTSIM_PROTOCOL") != str(PROTOCOL_VERSION):
        harness.fail(f"environment: CKPTSIM_PROTOCOL is {os.environ.get('CKPTSIM_PROTOCOL')!r}; "
                     f"this shim speaks protocol {PROTOCOL_VERSION}")
    try:
        determinism.check_env()
    except SystemExit as exc:
        harness.fail(str(exc))
    as_zygote = os.environ.get("CKPTSIM_ZYGOTE") == "1"
    # A zygote has no identity yet: a placeholder one (pid 1000, no child's) until each fork.
    rank, world_size, incarnation, stream = zygote.PLACEHOLDER if as_zygote else _identity()

    router = Router(os.environ.get("CKPTSIM_VROOT", DEFAULT_VROOT))
    vfs = Vfs(router, lambda op, fields: session.request("fs", op, fields)).install()
    tripwire.install(router, vfs.table)
    determinism.install(stream, rank, incarnation)
    standins.install(rank, world_size, lambda op, fields: session.request("coll", op, fields))

    folders = [os.path.abspath(folder) for folder in arguments.path]
    sys.path[0:0] = folders
    module_name, class_name = _split_target(arguments.target, "the callback")
    try:
        module = importlib.import_module(module_name)
        binding_spec = arguments.binding or DEFAULT_BINDING
        binding_class = _load_binding_class(binding_spec)
    except Exception:
        harness.fail(f"importing the callback or its binding failed:\n{traceback.format_exc()}")
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        harness.fail(f"{module_name} has no class {class_name}")

    def serve_calls(rank, world_size, incarnation, known_sources=None):
        context = BindingContext(rank, world_size, incarnation, session, binding_spec)
        binding = binding_class(module, cls, context)
        ready = {"t": "ready", "protocol": PROTOCOL_VERSION, "shim": SHIM_VERSION,
                 "python": platform.python_version(), "class": cls.__name__, "binding": binding_spec,
                 "overrides": overrides(cls),
                 # A forked child has loaded nothing since the zygote hashed: its sources are those.
                 "sources": known_sources if known_sources is not None else hash_sources(folders)}
        tripwire.serving_calls()
        session.serve(ready, Dispatcher(binding, rank, world_size, session))

    if as_zygote:
        known_sources = hash_sources(folders)

        def child():  # after the fork, with the spawn's identity in os.environ
            rank, world_size, incarnation, stream = _identity()
            determinism.reseed(stream, rank, incarnation)
            standins.set_identity(rank, world_size)
            serve_calls(rank, world_size, incarnation, known_sources)

        zygote.run(session, child)  # never returns
    serve_calls(rank, world_size, incarnation)
    return 0  # not reached: shutdown exits the process


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m ckptsim_shim")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run one callback process on CKPTSIM_FD")
    serve_parser.add_argument("--path", action="append", default=[], help="a folder prepended to sys.path")
    serve_parser.add_argument("--binding", help="FILE.py:Class or MODULE:Class (a Binding subclass)")
    serve_parser.add_argument("target", help="the callback, MODULE:Class")
    commands.add_parser("selftest", help="check the interposition against an in-memory disk")
    arguments = parser.parse_args(argv)
    if arguments.command == "selftest":
        from .selftest import run
        return run()
    return serve(arguments)


if __name__ == "__main__":
    sys.exit(main())
