"""transformers.utils.logging stand-in: Transformers' logger helpers over the stdlib logging.

Contract: get_logger(name) returns logging.getLogger(name) under the "transformers" hierarchy's
verbosity (WARNING by default, as Transformers); records go to stderr, whose tail the simulator
keeps, never to the protocol channel.
"""

import logging

__all__ = ["get_logger", "get_verbosity", "set_verbosity", "set_verbosity_debug", "set_verbosity_info",
           "set_verbosity_warning", "set_verbosity_error", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

DEBUG, INFO, WARNING, ERROR, CRITICAL = (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR,
                                         logging.CRITICAL)
_root = logging.getLogger("transformers")
_root.setLevel(WARNING)


def get_logger(name=None):
    return logging.getLogger(name if name is not None else "transformers")


def get_verbosity():
    return _root.getEffectiveLevel()


def set_verbosity(level):
    _root.setLevel(level)


def set_verbosity_debug():
    set_verbosity(DEBUG)


def set_verbosity_info():
    set_verbosity(INFO)


def set_verbosity_warning():
    set_verbosity(WARNING)


def set_verbosity_error():
    set_verbosity(ERROR)
