"""Source hashes for the handshake: which code a run executed.

Contract: hash_sources(folders) returns {relative path: "sha256:<hex>"} for every module in
sys.modules whose file lies under one of the --path folders (the first folder that contains it
names it), so a replay can tell that the callback's code changed. Real files, read directly.
`known` (a zygote's hashes, taken when it imported the code its children run) answers for the
paths it names; only modules loaded since are read.
"""

import hashlib
import os
import sys


def hash_sources(folders, known=None):
    roots = [os.path.realpath(folder) for folder in folders]
    hashes = {}
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if not isinstance(filename, str):
            continue
        real = os.path.realpath(filename)
        for root in roots:
            if real.startswith(root + os.sep):
                relative = os.path.relpath(real, root).replace(os.sep, "/")
                if known and relative in known:
                    hashes[relative] = known[relative]
                    break
                with open(real, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
                hashes[relative] = "sha256:" + digest
                break
    return dict(sorted(hashes.items()))
