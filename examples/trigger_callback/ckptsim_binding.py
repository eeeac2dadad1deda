"""OriginalApiBinding: the trainer glue for callbacks with the original trigger module's API.

Contract: for a module exposing CheckpointEvaluationTriggerCallback(enabled, patience, tie_policy,
patience_start_step, gate_steps, regular_steps, save_total_limit, output_dir), `cb.policy`
(observe(score, step=) -> decision with to_dict(), state_dict(), load_state_dict(),
establish_external_baseline(score, step=), a dataclass `state`),
cb.record_checkpoint_evaluation_decision, cb.persist, cb.consume_checkpoint_evaluation,
cb._pending_checkpoint_save_step and the module function apply_checkpoint_evaluation_decision.

evaluate() restates ckptsim's C++ round (policy/trigger/evaluation_round.cpp) step for step, with
its envelope (policy/ports/rank_zero_outcome.cpp): the same order of moments, the same outcome
object {"ok", "error_type", "error"} and the same failure text. Two deliberate differences:
`error_type` is the Python exception's own class name (what the original module's envelope
reports; the C++ port can only approximate it as ValueError/OSError/RuntimeError), and the
rank-zero failure is raised as RuntimeError, the class the original raises.

Use: python3 -m ckptsim_shim serve --path DIR \
         --binding examples/trigger_callback/ckptsim_binding.py:OriginalApiBinding \
         checkpoint_eval_policy:CheckpointEvaluationTriggerCallback
"""

import dataclasses

from ckptsim_shim.binding import Binding

# The bare operation names the C++ round uses; the envelope prefixes "checkpoint evaluation ".
DECISION_OPERATION = "decision"
PERSIST_OPERATION = "persist"

POLICY_STATE_FIELDS = ("best_score", "best_step", "lower_score_streak", "evaluation_count", "stop_requested",
                       "best_is_external")


class OriginalApiBinding(Binding):
    # ---- the glue the protocol's calls need --------------------------------------------------

    def consume(self):
        return bool(self.require_callback("consume_checkpoint_evaluation").consume_checkpoint_evaluation())

    def pending_save_step(self):
        step = self.require_callback("pending_save_step")._pending_checkpoint_save_step
        return None if step is None else int(step)

    def baseline(self, score, step):
        self.require_callback("baseline").policy.establish_external_baseline(score, step=step)

    def policy_state(self):
        if self.callback is None:
            return None
        state = self.callback.policy.state  # read field by field: asdict deep-copies, on every call
        return {name: getattr(state, name) for name in POLICY_STATE_FIELDS}

    # ---- the round ---------------------------------------------------------------------------

    def evaluate(self, score, step, control, hooks):
        callback = self.require_callback("evaluate")
        policy = callback.policy
        is_rank_zero = self.rank == 0
        prior = self.policy_state()

        def decide():
            decision = policy.observe(score, step=step)
            return {"decision": decision.to_dict(), "policy_state": policy.state_dict()}

        # The decision is made on rank 0 and shared, error included, so no rank waits on a rank 0
        # that raised.
        hooks.waiting_point(DECISION_OPERATION)
        received = self._run_on_rank_zero_and_share_outcome(DECISION_OPERATION, decide)
        decision = received["decision"]
        if not is_rank_zero:
            policy.load_state_dict(received["policy_state"])
        else:
            hooks.decision(prior, decision, self.policy_state())
        hooks.rank_state(self.policy_state())
        applied = self.module.apply_checkpoint_evaluation_decision(control, decision)
        if applied is not None:
            control = applied
        callback.record_checkpoint_evaluation_decision(decision)
        if decision["should_stop"]:
            hooks.stop_in_force()
        hooks.after_recorded()
        if not decision["should_save"]:
            # A lower score has no checkpoint to live in: persist it now, inside an envelope of
            # its own, so an I/O error fails every rank alike.
            hooks.waiting_point(PERSIST_OPERATION)
            self._run_on_rank_zero_and_share_outcome(PERSIST_OPERATION, lambda: (callback.persist(), {})[1])
            if is_rank_zero:
                hooks.after_persist(self.policy_state())
        return control, decision

    def _run_on_rank_zero_and_share_outcome(self, operation, action):
        """rank_zero_outcome.cpp: rank 0 runs `action` (a dict merged into the outcome), every
        rank receives rank 0's outcome in one broadcast and continues with it or raises."""
        outcome = None  # the other ranks send null and receive rank 0's
        error = None
        if self.rank == 0:
            try:
                outcome = dict(action())
                outcome["ok"] = True
            except Exception as exc:  # shared with every rank before anyone raises
                error = exc
                outcome = {"ok": False, "error_type": type(exc).__name__, "error": str(exc)}
        received = self.broadcast(outcome, 0)
        if not isinstance(received, dict) or not isinstance(received.get("ok"), bool):
            raise RuntimeError(f"checkpoint evaluation {operation} did not receive a valid rank-zero outcome")
        if not received["ok"]:
            error_type = received.get("error_type", "RuntimeError")
            detail = received.get("error", "unknown error")
            raise RuntimeError(f"checkpoint evaluation {operation} failed on global rank zero "
                               f"({error_type}): {detail}") from error
        return received
