"""checkpoint_eval_state.json, the sidecar, as the C++ port writes, reads and adopts it.

Contract: restates `policy/formats/sidecar_format.*` (the version 2 document, byte for byte,
and the version 1 one the previous release wrote), its migration of version 1
(`document_migrations.*`: last_evaluated_step null, migrated_from_version 1), the reader's
shapes in the port's order of rejection with the port's ValueError messages, and
`policy/trigger/sidecar_adoption.*`: whether a well-formed sidecar replaces a restored state.
"""

import json
from typing import Any, Optional

from ckpt_eval_core import CheckpointEvaluationPolicy, CheckpointEvaluationState
from ckpt_eval_values import INT64_MAX, MalformedJson, dump_compact, equals_int, parse_untrusted_json
from ckpt_links import checkpoint_records_best, exists, is_complete_checkpoint, read_file

SEED_SIDECAR_VERSION = 1
SIDECAR_VERSION = 2
LAST_EVALUATED_STEP_KEY = "last_evaluated_step"

# The reader's shapes, each a rejection checked after the ones before it.
MISSING = "missing"
UNREADABLE = "unreadable"
NOT_A_MAPPING = "not_a_mapping"
UNSUPPORTED_VERSION = "unsupported_version"
NO_POLICY_STATE = "no_policy_state"
INVALID_LAST_EVALUATED_STEP = "invalid_last_evaluated_step"
WELL_FORMED = "well_formed"

# The adoption verdicts (sidecar_adoption.hpp).
ADOPTED = "adopted"
NOT_NEWER = "not_newer"
UNCOMMITTED_BEST = "uncommitted_best"
BEST_MISMATCH = "best_mismatch"


def sidecar_text(policy: CheckpointEvaluationPolicy, last_evaluated_step: Optional[int],
                 version: int = SIDECAR_VERSION) -> str:
    """The sidecar's exact text: json.dump(indent=2, sort_keys=True) of the document, then "\\n".

    best_score is always a float here (the policy holds it so), and Python's json writes a
    float with repr(), which is the port's formatter (python::float_repr): "0.1", "1e+16",
    "1e-05", "-0.0". Every other value is an int, a bool, null or a tie-policy name.
    """
    if version == SEED_SIDECAR_VERSION:
        document = {"checkpoint_eval_state": policy.state_dict(), "version": SEED_SIDECAR_VERSION}
    elif version == SIDECAR_VERSION:
        document = {"checkpoint_eval_state": policy.state_dict(),
                    LAST_EVALUATED_STEP_KEY: last_evaluated_step, "version": SIDECAR_VERSION}
    else:
        raise ValueError("checkpoint evaluation sidecar version must be 1 or 2, got %s" % (version,))
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _supported_version(payload: dict) -> Optional[int]:
    # Python's == decides, as the seed's `!= 1` did: 1.0 and true still read as version 1.
    if "version" not in payload:
        return None
    for known in (SEED_SIDECAR_VERSION, SIDECAR_VERSION):
        if equals_int(payload["version"], known):
            return known
    return None


def _is_step_or_null(value: Any) -> bool:
    # Our own field, so no Python coercion: only a JSON integer step (or null) is one.
    if value is None:
        return True
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT64_MAX


class SidecarDocument:
    """What a sidecar file is, and its payload migrated to version 2 once well formed."""

    def __init__(self) -> None:
        self.shape = MISSING
        self.payload: Any = None
        self.version_on_disk: Optional[int] = None
        self.unreadable_reason = ""

    def policy_state(self) -> Optional[dict]:
        if not isinstance(self.payload, dict):
            return None
        state = self.payload.get("checkpoint_eval_state")
        return state if isinstance(state, dict) else None

    def last_evaluated_step(self) -> Optional[int]:
        if self.shape != WELL_FORMED:
            return None
        return self.payload[LAST_EVALUATED_STEP_KEY]

    def throw_if_malformed(self, path: str) -> None:
        """Raises the port's ValueError for a malformed sidecar; returns when missing or well formed."""
        if self.shape in (MISSING, WELL_FORMED):
            return
        if self.shape == UNREADABLE:
            # Failing loudly beats silently resetting patience, which could retain a worse model.
            raise ValueError("Cannot load checkpoint evaluation metadata from " + path)
        if self.shape == NOT_A_MAPPING:
            raise ValueError("Checkpoint evaluation metadata at " + path + " must be a mapping")
        if self.shape == UNSUPPORTED_VERSION:
            shown = repr(self.payload["version"]) if "version" in self.payload else "None"
            raise ValueError("Unsupported checkpoint evaluation metadata version at " + path + ": " + shown)
        if self.shape == NO_POLICY_STATE:
            raise ValueError("Checkpoint evaluation metadata at " + path + " has no policy state")
        step = self.payload.get(LAST_EVALUATED_STEP_KEY, _ABSENT)
        raise ValueError("Checkpoint evaluation metadata at " + path + " has an invalid last_evaluated_step: "
                         + ("missing" if step is _ABSENT else dump_compact(step)))


_ABSENT = object()


def _classify_and_migrate(document: SidecarDocument) -> None:
    payload = document.payload
    if not isinstance(payload, dict):
        document.shape = NOT_A_MAPPING
        return
    document.version_on_disk = _supported_version(payload)
    if document.version_on_disk is None:
        document.shape = UNSUPPORTED_VERSION
        return
    if document.policy_state() is None:
        document.shape = NO_POLICY_STATE
        return
    if document.version_on_disk == SIDECAR_VERSION:
        if LAST_EVALUATED_STEP_KEY not in payload or not _is_step_or_null(payload[LAST_EVALUATED_STEP_KEY]):
            document.shape = INVALID_LAST_EVALUATED_STEP
            return
    else:
        # 1 -> 2: the step of the last evaluation is unknown, so nothing will be skipped.
        payload[LAST_EVALUATED_STEP_KEY] = None
        payload.setdefault("migrated_from_version", SEED_SIDECAR_VERSION)
    payload["version"] = SIDECAR_VERSION
    document.shape = WELL_FORMED


def read_sidecar(path: str) -> SidecarDocument:
    """Reads the sidecar at `path` (exists, then read), never raising for its content."""
    document = SidecarDocument()
    if not exists(path):
        return document
    document.shape = UNREADABLE
    try:
        document.payload = parse_untrusted_json(read_file(path), path)
    except (OSError, MalformedJson) as error:
        document.payload = None
        document.unreadable_reason = str(error)
        return document
    _classify_and_migrate(document)
    return document


def judge_sidecar_adoption(output_dir: str, sidecar: CheckpointEvaluationState,
                           restored_evaluations: int) -> str:
    """Whether a well-formed sidecar's state replaces a restored one, and if not, why.

    The retained checkpoint is the source of truth: a sidecar may add later, lower evaluations,
    but never roll the callback back or name a best that was never written (or was written in
    an abandoned history).
    """
    if sidecar.evaluation_count <= restored_evaluations:
        return NOT_NEWER
    if sidecar.best_is_external:
        return ADOPTED
    if sidecar.best_step is None or not is_complete_checkpoint(output_dir, sidecar.best_step):
        return UNCOMMITTED_BEST
    if not checkpoint_records_best(output_dir, sidecar.best_step, sidecar.best_score):
        return BEST_MISMATCH
    return ADOPTED
