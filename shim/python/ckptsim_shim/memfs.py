"""An in-memory disk that answers the protocol's `fs` requests: the selftest's backend and the
test suite's fake simulator. It is not the simulator (no crash model, no fsync state).

Contract: MemoryFs().handle(op, fields) returns the `value` of an `ok` answer or raises
FsError(errno). Semantics follow POSIX as the simulator's port answers them: paths are absolute
simulator paths; intermediate symlinks are followed (relative targets from the link's folder,
absolute ones from the simulator's root); `stat` follows the last link only with follow=true;
`mkdir` of an existing entry is EEXIST; `remove_tree` of a missing path succeeds; `rename`
replaces its destination; `write_file` creates or truncates. `log` records every request.
"""

import errno


class FsError(Exception):
    def __init__(self, errno_value, message=""):
        super().__init__(errno_value, message)
        self.errno = errno_value


class _Dir:
    def __init__(self):
        self.children = {}


class _File:
    def __init__(self, data=b""):
        self.data = data


class _Link:
    def __init__(self, target):
        self.target = target


def _parts(path):
    if not isinstance(path, str) or not path.startswith("/"):
        raise FsError(errno.EINVAL, f"not an absolute path: {path!r}")
    return [p for p in path.split("/") if p not in ("", ".")]


class MemoryFs:
    def __init__(self):
        self.root = _Dir()
        self.log = []

    # ---- resolution ------------------------------------------------------------------------

    def _walk(self, parts, follow_last, depth=0):
        """(parent _Dir, name, node or None) for `parts`; name is None for the root."""
        if depth > 40:
            raise FsError(errno.ELOOP)
        directory, resolved = self.root, []
        for index, name in enumerate(parts):
            last = index == len(parts) - 1
            if name == "..":
                resolved = resolved[:-1]
                directory = self._node(resolved)
                if last:
                    return self._walk(resolved, follow_last, depth)
                continue
            node = directory.children.get(name)
            if isinstance(node, _Link) and (not last or follow_last):
                base = [] if node.target.startswith("/") else resolved
                target = base + [p for p in node.target.split("/") if p not in ("", ".")]
                return self._walk(target + parts[index + 1:], follow_last, depth + 1)
            if last:
                return directory, name, node
            if node is None:
                raise FsError(errno.ENOENT)
            if not isinstance(node, _Dir):
                raise FsError(errno.ENOTDIR)
            directory = node
            resolved.append(name)
        return None, None, directory

    def _node(self, parts):
        return self._walk(parts, True)[2] if parts else self.root

    def _lookup(self, path, follow=True):
        parent, name, node = self._walk(_parts(path), follow)
        if node is None:
            raise FsError(errno.ENOENT)
        return parent, name, node

    def _parent_for_create(self, path):
        parent, name, node = self._walk(_parts(path), False)
        if name is None:
            raise FsError(errno.EEXIST)
        return parent, name, node

    # ---- requests ----------------------------------------------------------------------------

    def handle(self, op, fields):
        self.log.append((op, dict(fields)))
        method = getattr(self, "op_" + op, None)
        if method is None:
            raise FsError(errno.ENOSYS, f"unknown fs op {op}")
        return method(**fields)

    def op_stat(self, path, follow):
        node = self._lookup(path, follow)[2]
        if isinstance(node, _Dir):
            return {"kind": "dir", "size": 0}
        if isinstance(node, _Link):
            return {"kind": "symlink", "size": len(node.target.encode("utf-8"))}
        return {"kind": "file", "size": len(node.data)}

    def op_read_file(self, path):
        node = self._lookup(path)[2]
        if isinstance(node, _Dir):
            raise FsError(errno.EISDIR)
        return {"data": node.data.decode("latin-1")}

    def op_write_file(self, path, data):
        parent, name, node = self._walk(_parts(path), True)
        if name is None or isinstance(node, _Dir):
            raise FsError(errno.EISDIR)
        parent.children[name] = _File(data.encode("latin-1"))

    def op_fsync_file(self, path):
        if isinstance(self._lookup(path)[2], _Dir):
            raise FsError(errno.EISDIR)

    def op_fsync_dir(self, path):
        if not isinstance(self._lookup(path)[2], _Dir):
            raise FsError(errno.ENOTDIR)

    def op_unlink(self, path):
        parent, name, node = self._lookup(path, follow=False)
        if isinstance(node, _Dir):
            raise FsError(errno.EISDIR)
        del parent.children[name]

    def op_mkdir(self, path):
        parent, name, node = self._parent_for_create(path)
        if node is not None:
            raise FsError(errno.EEXIST)
        parent.children[name] = _Dir()

    def op_remove_tree(self, path):
        try:
            parent, name, node = self._lookup(path, follow=False)
        except FsError as exc:
            if exc.errno == errno.ENOENT:
                return None
            raise
        if name is None:
            raise FsError(errno.EBUSY)
        del parent.children[name]

    def op_rename(self, **fields):
        source_parent, source_name, node = self._lookup(fields["from"], follow=False)
        parent, name, existing = self._parent_for_create(fields["to"])
        if isinstance(existing, _Dir) and (not isinstance(node, _Dir) or existing.children):
            raise FsError(errno.EISDIR if not isinstance(node, _Dir) else errno.ENOTEMPTY)
        if isinstance(node, _Dir) and existing is not None and not isinstance(existing, _Dir):
            raise FsError(errno.ENOTDIR)
        del source_parent.children[source_name]
        parent.children[name] = node

    def op_symlink(self, target, path):
        parent, name, node = self._parent_for_create(path)
        if node is not None:
            raise FsError(errno.EEXIST)
        parent.children[name] = _Link(target)

    def op_readlink(self, path):
        node = self._lookup(path, follow=False)[2]
        if not isinstance(node, _Link):
            raise FsError(errno.EINVAL)
        return node.target

    def op_list_dir(self, path):
        node = self._lookup(path)[2]
        if not isinstance(node, _Dir):
            raise FsError(errno.ENOTDIR)
        return sorted(node.children, key=lambda n: n.encode("utf-8"))

    # ---- for tests -------------------------------------------------------------------------

    def read(self, path):
        return self._lookup(path)[2].data

    def exists(self, path):
        try:
            self._lookup(path, follow=False)
        except FsError:
            return False
        return True
