"""A small SFTP (version 3) client over the `ssh` binary's stdio: remote listing and the no-rsync pull.

Why not the `sftp` binary or paramiko: the `sftp` binary takes commands as text (paths would need
quoting, listings would need parsing), and paramiko speaks SSH itself, so a person's `~/.ssh/config`
(Host aliases, ProxyJump, IdentityFile), agent and `known_hosts` would not apply as they do for `ssh`.
Here `ssh -s HOST sftp` makes the connection and this module speaks the SFTP packets (a few message
types of draft-ietf-secsh-filexfer-02) over its pipes: paths travel as length-prefixed bytes, never
through a shell, and names the server sends are checked before they become local paths.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import struct
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

_INIT, _VERSION, _OPEN, _CLOSE, _READ, _LSTAT, _OPENDIR, _READDIR, _STAT = 1, 2, 3, 4, 5, 7, 11, 12, 17
_STATUS, _HANDLE, _DATA, _NAME, _ATTRS = 101, 102, 103, 104, 105
_EOF, _NO_SUCH_FILE, _PERMISSION_DENIED = 1, 2, 3
_SIZE, _UIDGID, _PERMS, _TIMES, _EXTENDED = 0x1, 0x2, 0x4, 0x8, 0x80000000
_READ_FLAG = 0x1
CHUNK = 32768
"""Bytes asked for per READ (every server accepts 32 KiB)."""
WINDOW = 16
"""READ requests kept in flight at once, so a file's transfer is not one round trip per chunk."""
MAX_PACKET = 1 << 20


class SftpError(Exception):
    """The SFTP session failed, or the server answered a request with an error status."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Attrs:
    """The attributes of a remote entry this client uses (lstat: a symbolic link is a link)."""

    size: int
    mode: int
    mtime: int

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.mode)

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def u32(self) -> int:
        (v,) = struct.unpack_from(">I", self.data, self.pos)
        self.pos += 4
        return v

    def u64(self) -> int:
        (v,) = struct.unpack_from(">Q", self.data, self.pos)
        self.pos += 8
        return v

    def string(self) -> bytes:
        n = self.u32()
        if self.pos + n > len(self.data):
            raise SftpError("malformed SFTP packet from the server")
        v = self.data[self.pos : self.pos + n]
        self.pos += n
        return v

    def attrs(self) -> Attrs:
        flags = self.u32()
        size = self.u64() if flags & _SIZE else 0
        if flags & _UIDGID:
            self.u32(), self.u32()
        mode = self.u32() if flags & _PERMS else 0
        mtime = 0
        if flags & _TIMES:
            self.u32()
            mtime = self.u32()
        if flags & _EXTENDED:
            for _ in range(self.u32()):
                self.string(), self.string()
        return Attrs(size, mode, mtime)


class SftpClient:
    """One SFTP session on a started `ssh ... -s HOST sftp` process (closed with `close`)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self._id = 0
        self.broken = False
        self._send(_INIT, struct.pack(">I", 3))
        kind, _ = self._recv()
        if kind != _VERSION:
            raise SftpError("the server did not start an SFTP session")

    def close(self) -> None:
        """End the session and the ssh process."""
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _send(self, kind: int, payload: bytes) -> None:
        try:
            self.proc.stdin.write(struct.pack(">IB", len(payload) + 1, kind) + payload)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise SftpError("the SSH connection closed") from None

    def _read_exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            part = self.proc.stdout.read(n - len(buf))
            if not part:
                raise SftpError("the SSH connection closed")
            buf += part
        return buf

    def _recv(self) -> tuple[int, _Reader]:
        (length,) = struct.unpack(">I", self._read_exact(4))
        if not 1 <= length <= MAX_PACKET:
            raise SftpError("malformed SFTP packet from the server")
        body = self._read_exact(length)
        return body[0], _Reader(body[1:])

    def _request(self, kind: int, payload: bytes) -> int:
        self._id = (self._id + 1) & 0xFFFFFFFF
        self._send(kind, struct.pack(">I", self._id) + payload)
        return self._id

    def _reply(self, want: int) -> tuple[int, _Reader]:
        kind, r = self._recv()
        if r.u32() != want:
            raise SftpError("SFTP replies out of order")
        return kind, r

    @staticmethod
    def _status(r: _Reader, what: str) -> SftpError:
        code = r.u32()
        text = r.string().decode("utf-8", "replace")[:200]
        return SftpError(f"{what}: {text or 'error ' + str(code)}", code)

    def _call(self, kind: int, payload: bytes, expect: int, what: str) -> _Reader:
        got, r = self._reply(self._request(kind, payload))
        if got == _STATUS:
            raise self._status(r, what)
        if got != expect:
            raise SftpError(f"{what}: unexpected SFTP reply")
        return r

    def lstat(self, path: bytes) -> Attrs:
        """Attributes of `path` itself (a link is not followed)."""
        return self._call(_LSTAT, _string(path), _ATTRS, "lstat").attrs()

    def stat(self, path: bytes) -> Attrs:
        """Attributes of what `path` names (the configured root may itself be a link)."""
        return self._call(_STAT, _string(path), _ATTRS, "stat").attrs()

    def listdir(self, path: bytes) -> list[tuple[bytes, Attrs]]:
        """(name, lstat attributes) of each entry of a folder, without `.`, `..` and unsafe names."""
        handle = self._call(_OPENDIR, _string(path), _HANDLE, "opendir").string()
        out: list[tuple[bytes, Attrs]] = []
        try:
            while True:
                kind, r = self._reply(self._request(_READDIR, _string(handle)))
                if kind == _STATUS:
                    err = self._status(r, "readdir")
                    if err.code == _EOF:
                        break
                    raise err
                if kind != _NAME:
                    raise SftpError("readdir: unexpected SFTP reply")
                for _ in range(r.u32()):
                    name, _long, attrs = r.string(), r.string(), r.attrs()
                    if safe_name(name):
                        out.append((name, attrs))
        finally:
            self._close(handle)
        return out

    def _close(self, handle: bytes) -> None:
        kind, r = self._reply(self._request(_CLOSE, _string(handle)))
        if kind == _STATUS:
            r.u32()

    def fetch(self, path: bytes, out, offset: int, size: int, on_bytes: Callable[[int], None]) -> None:
        """Write the bytes of `path` from `offset` up to `size` into the open binary file `out`,
        keeping WINDOW reads in flight."""
        handle = self._call(
            _OPEN, _string(path) + struct.pack(">II", _READ_FLAG, 0), _HANDLE, "open"
        ).string()
        try:
            pending: dict[int, int] = {}
            order: list[int] = []
            next_off = offset
            while next_off < size or order:
                while next_off < size and len(order) < WINDOW:
                    n = min(CHUNK, size - next_off)
                    rid = self._request(_READ, _string(handle) + struct.pack(">QI", next_off, n))
                    pending[rid] = next_off
                    order.append(rid)
                    next_off += n
                kind, r = self._recv()
                rid = r.u32()
                if rid != order[0]:
                    raise SftpError("SFTP replies out of order")
                order.pop(0)
                at = pending.pop(rid)
                if kind == _STATUS:
                    err = self._status(r, "read")
                    if err.code == _EOF:  # the file got shorter meanwhile: take what is there
                        size = min(size, at)
                        continue
                    raise err
                data = r.string()
                if out.tell() != at or not data:
                    raise SftpError("short SFTP read (the file changed during the pull)")
                out.write(data)
                on_bytes(len(data))
                if len(data) < min(CHUNK, size - at):  # a short read: ask again from where it stopped
                    for rest in order:
                        self._drain(rest)
                    order.clear()
                    pending.clear()
                    next_off = at + len(data)
        except BaseException:
            self.broken = True  # replies may still be in flight: no more requests on this session
            raise
        self._close(handle)

    def _drain(self, rid: int) -> None:
        kind, r = self._recv()
        if r.u32() != rid:
            raise SftpError("SFTP replies out of order")


def safe_name(name: bytes) -> bool:
    """A remote entry name that can become one local path part (no `/`, `..`, NUL or control bytes)."""
    return bool(name) and name not in (b".", b"..") and not any(b < 32 or b == 47 for b in name)


def open_session(argv: list[str]) -> SftpClient:
    """Start `argv` (an `ssh ... -s HOST sftp` command) and open an SFTP session on it (ssh's messages
    go to a temporary file, so a chatty ssh never blocks on a full pipe)."""
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, start_new_session=True
    )
    try:
        return SftpClient(proc)
    except SftpError:
        try:
            proc.wait(timeout=5)  # ssh exits by itself after a refused connection or key
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err.seek(0)
        text = err.read(4000).decode("utf-8", "replace")
        raise SftpError(text or "the SSH connection closed") from None
    finally:
        err.close()


def walk(client: SftpClient, root: bytes) -> Iterator[tuple[tuple[bytes, ...], Attrs]]:
    """(relative parts, attrs) of every regular file under `root`; links and special files skipped."""
    stack: list[tuple[bytes, ...]] = [()]
    while stack:
        parts = stack.pop()
        folder = b"/".join((root, *parts)) if parts else root
        for name, attrs in sorted(client.listdir(folder)):
            if attrs.is_dir:
                stack.append((*parts, name))
            elif attrs.is_file:
                yield (*parts, name), attrs


@dataclass
class SftpTally:
    """Files and bytes a mirror run copied."""

    files: int = 0
    bytes: int = 0
    changed: list[Path] = field(default_factory=list)
    """The local files written."""


def mirror(
    client: SftpClient,
    root: bytes,
    dest: Path,
    work: Path,
    tally: SftpTally | None = None,
    cancel: threading.Event | None = None,
) -> SftpTally:
    """Copy new and changed regular files under remote `root` into `dest`.

    A file whose size and mtime match its copy is skipped; one that grew and whose copy is still
    the head of the remote file (its last 4 KiB compared) gets only the new bytes; anything else is
    copied whole. Each file is assembled under `work` and renamed into `dest` only when complete, so
    `dest` never holds a half file; bytes already fetched of an interrupted file are kept in `work`
    (named by remote size and mtime) and the next run continues from there. `cancel` stops it
    between two chunks (what was fetched stays in `work`)."""
    tally = tally if tally is not None else SftpTally()
    work.mkdir(parents=True, exist_ok=True)

    def count(n: int) -> None:
        tally.bytes += n
        if cancel is not None and cancel.is_set():
            raise SftpError("stopped before the pull finished")

    for parts, attrs in walk(client, root):
        rel = [os.fsdecode(p) for p in parts]
        local = dest.joinpath(*rel)
        try:
            st = os.lstat(local)
            have = (st.st_size, int(st.st_mtime)) if stat.S_ISREG(st.st_mode) else None
        except FileNotFoundError:
            have = None
        if have == (attrs.size, attrs.mtime):
            continue
        remote = b"/".join((root, *parts))
        key = hashlib.sha256(b"/".join(parts)).hexdigest()[:24]
        part = work / f"{key}.{attrs.size}-{attrs.mtime}.part"
        start = part.stat().st_size if part.exists() else 0
        if start == 0 and have and have[0] < attrs.size and _same_head(client, remote, local, have[0]):
            _copy(local, part)
            start = have[0]
        if start > attrs.size:
            part.unlink()
            start = 0
        with open(part, "ab") as out:
            out.truncate(start)
            out.seek(start)
            client.fetch(remote, out, start, attrs.size, count)  # no fsync, as rsync: a copy that a
            # crash cuts short differs in size from the remote, and the next pull fetches it again
        os.utime(part, (attrs.mtime, attrs.mtime))
        os.chmod(part, 0o600)
        local.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.replace(part, local)
        tally.files += 1
        tally.changed.append(local)
    for stale in work.glob("*.part"):  # pieces of files that changed again since
        stale.unlink(missing_ok=True)
    return tally


def _same_head(client: SftpClient, remote: bytes, local: Path, size: int) -> bool:
    """Whether the last 4 KiB of the local copy (of `size` bytes) are the same bytes in the remote file."""
    at = max(0, size - 4096)
    with open(local, "rb") as f:
        f.seek(at)
        mine = f.read(size - at)
    buf = io.BytesIO()
    buf.seek(at)
    try:
        client.fetch(remote, buf, at, size, lambda n: None)
    except SftpError:
        if client.broken:
            raise
        return False
    return buf.getvalue()[at:] == mine


def _copy(src: Path, dst: Path) -> None:
    with open(src, "rb") as a, open(dst, "wb") as b:
        while chunk := a.read(1 << 20):
            b.write(chunk)
