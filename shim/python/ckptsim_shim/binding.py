"""The binding: the trainer glue between protocol calls and one callback class.

Contract: a binding subclasses Binding and is built as Binding(module, cls, context). The base
implements what is pure Transformers:
- construct(kwargs): cls(**kwargs);
- restore_state(saved): Transformers' _load_callback_state rebuild, type(cb)(**saved["args"]),
  then setattr for each attribute, replacing the current callback;
- event(name, args, state, control): CallbackHandler.call_event (a returned control replaces it);
- export_state(): cb.state(); policy_state(): None; classify(exc): the `kind` of a `raise`.
The callback-specific glue (consume, pending_save_step, evaluate, baseline, policy_state) is the
subclass's; the base refuses it with a harness error naming the binding.
A binding reports the round's moments through `hooks` (Hooks: notes, no answer) and shares
rank-zero outcomes through self.broadcast (the C++ Collective port: the identity in a world of
one, as SingleProcessCollective, else one `coll broadcast`).
"""

from . import harness
from .standins.trainer_callback import call_event


class BindingContext:
    def __init__(self, rank, world_size, incarnation, session, spec):
        self.rank = rank
        self.world_size = world_size
        self.incarnation = incarnation
        self.session = session
        self.spec = spec  # how the binding was named on the command line, for messages


class Hooks:
    """The notes a binding sends from its trainer glue (docs/callback-protocol.md, Notes)."""

    def __init__(self, session):
        self._session = session

    def _note(self, name, **fields):
        self._session.note(name, fields)

    def waiting_point(self, operation):
        self._note("waiting_point", operation=str(operation))

    def decision(self, prior, decision, after):
        self._note("decision", prior=prior, decision=decision, after=after)

    def rank_state(self, state):
        self._note("rank_state", state=state)

    def stop_in_force(self):
        self._note("stop_in_force")

    def after_recorded(self):
        self._note("after_recorded")

    def after_persist(self, state):
        self._note("after_persist", state=state)

    def log(self, level, message):
        self._note("log", level=str(level), message=str(message))


class Binding:
    def __init__(self, module, cls, context):
        self.module = module
        self.cls = cls
        self.context = context
        self.callback = None

    @property
    def rank(self):
        return self.context.rank

    @property
    def world_size(self):
        return self.context.world_size

    def require_callback(self, what):
        if self.callback is None:
            harness.fail(f"protocol: {what} before construct or restore_state: there is no callback yet")
        return self.callback

    def _not_bound(self, what):
        harness.fail(f"the binding {self.context.spec} does not implement {what}: pass --binding with the "
                     f"trainer glue of {self.cls.__name__}")

    # ---- pure Transformers ---------------------------------------------------------------

    def construct(self, kwargs):
        self.callback = self.cls(**kwargs)

    def apply_process_settings(self, settings):
        """Process-local settings the constructor does not take (docs/callback-protocol.md): each is
        set on the callback only when its class declares the attribute; others are ignored, since
        a callback without the setting simply does not have that behaviour."""
        for name, value in settings.items():
            if hasattr(type(self.callback), name):
                setattr(self.callback, name, value)

    def restore_state(self, saved):
        if not isinstance(saved, dict) or not isinstance(saved.get("args"), dict) \
                or not isinstance(saved.get("attributes"), dict):
            harness.fail(f"protocol: saved must be {{'args': {{...}}, 'attributes': {{...}}}}, got {saved!r}")
        cls = type(self.callback) if self.callback is not None else self.cls
        rebuilt = cls(**saved["args"])
        for name, value in saved["attributes"].items():
            setattr(rebuilt, name, value)
        self.callback = rebuilt

    def event(self, name, args, state, control, **kwargs):
        callback = self.require_callback(name)
        return call_event([callback], name, args, state, control, **kwargs)

    def export_state(self):
        return self.require_callback("export_state").state()

    def policy_state(self):
        return None

    def classify(self, exc):
        if any(klass.__name__ == "TrainingArgumentsRefused" for klass in type(exc).__mro__):
            return "training_args_refused"
        if isinstance(exc, ValueError):
            return "value_error"
        if "sidecar policy restore" in str(exc):
            return "sidecar_restore"
        return "other"

    # ---- the callback's own glue -------------------------------------------------------------

    def consume(self):
        self._not_bound("consume_checkpoint_evaluation")

    def pending_save_step(self):
        self._not_bound("pending_save_step")

    def evaluate(self, score, step, control, hooks):
        """Returns (control, decision dict)."""
        self._not_bound("evaluate")

    def baseline(self, score, step):
        self._not_bound("baseline")

    # ---- the Collective port -----------------------------------------------------------------

    def broadcast(self, value, src=0):
        if self.world_size == 1:
            return value
        return self.context.session.request("coll", "broadcast", {"src": src, "value": value})
