"""Pulling remote sources into their local mirrors over SSH (rsync, or SFTP where the remote has no rsync).

The system OpenSSH client does every connection, so a person's `~/.ssh/config` (Host aliases,
ProxyJump, IdentityFile), keys, agent and `known_hosts` work exactly as they do for `ssh`; refind
adds only `BatchMode=yes` (never a prompt: refind never asks for or stores a password) and time-outs,
and keeps host key checking as the person's config has it. Every command is an argv list (no shell
here), remote paths travel as rsync's protected arguments or SFTP packets (no shell there either),
and the one remote command refind runs is rsync's own server.

A pull copies only new and changed files (rsync's delta transfer sends only the changed bytes of a
file that grew) into `spec.mirror_dir(data_dir)`. Files land whole: rsync assembles them in a work
folder outside the mirror and renames them in, and keeps an interrupted file's bytes there to resume
from. Nothing is deleted from the mirror (`--delete` is never used), so a transcript the remote
cleans up keeps its turns; symbolic links are not followed (`rsync` without `-l` skips them, the SFTP
walk does the same), so the pull stays inside the configured remote folder. Which mirror files a
pull wrote is recorded (`remote_pending`), so the ingest after it reads those and not every file.

Callers: `refind ingest` with no paths (`cli/core.py`), the watcher and `refind sources discover --host`.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import RefindError
from ..terminal import printable
from . import remote_sftp
from .remote_pending import begin_pull, end_pull
from .remote_spec import RemoteSpec, parse_remote
from .remote_store import HostStatus, RemoteStore, now_iso

WORK = "remote-pull"
"""Folder under the data folder where files being pulled are assembled (never ingested)."""
SSH_CONFIG_ENV = "REFIND_SSH_CONFIG"
"""An ssh_config file used instead of `~/.ssh/config` (`ssh -F`); the tests point it at their own."""
RSYNC_PATH_ENV = "REFIND_RSYNC_PATH"
"""The rsync program on the remote when it is not `rsync` on its PATH (rsync's `--rsync-path`)."""
DEFAULT_TIMEOUT = 20.0


class RemoteError(RefindError):
    """A remote host could not be reached or read."""

    exit_code = 10

    def __init__(self, message: str) -> None:
        super().__init__(message, "Remote source unreachable")


_NO_EXTRAS = (
    "RequestTTY=no",
    "RemoteCommand=none",
    "ForwardAgent=no",
    "ForwardX11=no",
    "ClearAllForwardings=yes",
)


@dataclass(frozen=True)
class Transport:
    """How to reach hosts: the ssh config file, the remote rsync program, time-outs, a bandwidth cap."""

    ssh_config: str | None = None
    """`ssh -F` file; None: the person's own `~/.ssh/config` (or REFIND_SSH_CONFIG when set)."""
    rsync_path: str | None = None
    """rsync program on the remote (`--rsync-path`, fixed text from the person's settings, never from a
    remote); None: `rsync` on its PATH."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds to connect, and seconds a transfer may stall, before the host counts as timed out."""
    bwlimit_kb: int | None = None
    """KiB per second cap for rsync (None: no cap)."""

    @classmethod
    def from_env(cls, timeout: float = DEFAULT_TIMEOUT) -> Transport:
        """The default transport, with REFIND_SSH_CONFIG and REFIND_RSYNC_PATH applied."""
        return cls(
            ssh_config=os.environ.get(SSH_CONFIG_ENV) or None,
            rsync_path=os.environ.get(RSYNC_PATH_ENV) or None,
            timeout=timeout,
        )

    def ssh_argv(self, spec: RemoteSpec) -> list[str]:
        """`ssh` and its options for `spec`'s host, without the destination."""
        t = max(1, int(self.timeout))
        argv = ["ssh", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={t}"]
        argv += ["-o", f"ServerAliveInterval={max(1, t // 3)}", "-o", "ServerAliveCountMax=3"]
        # a file transfer needs no terminal, remote command, forwarded agent, X11 or ports: a Host
        # block written for interactive use neither breaks the pull nor lends the remote those
        for option in _NO_EXTRAS:
            argv += ["-o", option]
        if self.ssh_config:
            argv += ["-F", self.ssh_config]
        if spec.port:
            argv += ["-p", str(spec.port)]
        if spec.user:
            argv += ["-l", spec.user]
        return argv


@dataclass
class PullResult:
    """What pulling one remote source did."""

    spec: RemoteSpec
    ok: bool
    error: str | None = None
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    method: str = ""
    mirror: Path | None = None
    reachable: bool = True
    """False when no connection was made (the host's other sources are not tried)."""
    changed: list[Path] | None = None
    """The mirror files this pull wrote, when it knows them all (None: walk the mirror to find them;
    a failed rsync does not know, a failed SFTP pull does)."""

    def to_json(self) -> dict:
        """Plain dict for `--json` output."""
        return {
            "source": self.spec.url,
            "host": self.spec.host_key,
            "ok": self.ok,
            "error": self.error,
            "files": self.files,
            "bytes": self.bytes,
            "seconds": self.seconds,
            "method": self.method,
            "mirror": str(self.mirror) if self.mirror else None,
        }


def _bare_host(spec: RemoteSpec) -> str:
    return spec.host[1:-1] if spec.host.startswith("[") else spec.host


def remote_path(spec: RemoteSpec) -> str:
    """The path as the remote's rsync or SFTP server takes it: `~/x` becomes `x` (both start in the home)."""
    path = spec.path
    if path == "~":
        return "."
    if path.startswith("~/"):
        return path[2:] or "."
    return path


def work_dir(data_dir: Path, spec: RemoteSpec) -> Path:
    """The work folder of one remote source: partial and temporary files, outside every mirror."""
    parts = [p for p in PurePosixPath(spec.path).parts if p != "/"]
    return Path(data_dir) / WORK / spec.host_key.replace(":", "_") / "-".join(parts).replace("/", "-")


@contextmanager
def pull_lock(data_dir: Path) -> Iterator[None]:
    """One pull at a time per data folder (another process's pull is waited for)."""
    path = Path(data_dir) / WORK / "pull.lock"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


_FAILURES = (
    (
        "host key verification failed",
        "its host key is not known or has changed: run `ssh {who}` once to check and accept it",
    ),
    ("remote host identification has changed", "its host key has changed: check it, then fix known_hosts"),
    (
        r"permission denied \((?:publickey|password|keyboard|gssapi|hostbased)",
        "the key was refused: `ssh {who}` must log in with a key or agent, without a password",
    ),
    ("connection refused", "connection refused (no SSH server on that port?)"),
    ("timed out", "timed out"),
    ("could not resolve hostname", "unknown host name"),
    ("name or service not known", "unknown host name"),
    ("no route to host", "no route to host"),
    ("network is unreachable", "network unreachable"),
    ("connection closed by", "the connection was closed by the host"),
    ("connection reset", "the connection was reset"),
    ("broken pipe", "the connection broke"),
)


def failure_reason(stderr: str, spec: RemoteSpec) -> str | None:
    """A short human reason for an SSH-level failure in `stderr`, or None when it names none."""
    low = stderr.lower()
    for needle, text in _FAILURES:
        if re.search(needle, low):
            who = spec.host_key if not spec.port else f"-p {spec.port} {spec.host_key.rsplit(':', 1)[0]}"
            return text.format(who=who)
    return None


def _last_line(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return printable(lines[-1], one_line=True)[:200] if lines else ""


_NO_RSYNC = re.compile(
    r"rsync: (?:command )?not found|: not found|command not found|no such file or directory", re.I
)


def _stat_number(out: str, label: str) -> int:
    m = re.search(re.escape(label) + r":\s*([\d,.]+)", out)
    return int(m.group(1).replace(",", "").replace(".", "")) if m else 0


def _run(argv: list[str], cancel: threading.Event | None) -> tuple[int, str, str]:
    """Run a command in its own process group; on `cancel`, stop it with SIGTERM (rsync keeps the partial)."""
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [
        threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True),
        threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True),
    ]
    for t in readers:
        t.start()
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
                break
            time.sleep(0.05)
    except BaseException:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        raise
    for t in readers:
        t.join()
    return proc.returncode, b"".join(out).decode("utf-8", "replace"), b"".join(err).decode("utf-8", "replace")


def rsync_argv(spec: RemoteSpec, dest: Path, work: Path, transport: Transport) -> list[str]:
    """The rsync command that mirrors `spec` into `dest` (see the module docstring for each choice)."""
    ssh = " ".join(_rsync_quote(a) for a in transport.ssh_argv(spec))
    argv = [
        "rsync",
        "-rt",  # recursive, keep mtimes; no -l: symbolic links are skipped, never followed
        "--protect-args",  # remote paths go to the remote rsync as data, not through its shell
        f"--partial-dir={work / 'partial'}",
        f"--temp-dir={work / 'tmp'}",
        "--chmod=D700,F600",
        f"--timeout={max(1, int(transport.timeout))}",
        "--stats",
        f"--out-format={_NAMED}%n",  # one line per file written, to ingest just those
        "-e",
        ssh,
    ]
    if transport.rsync_path:
        argv.append(f"--rsync-path={transport.rsync_path}")
    if transport.bwlimit_kb:
        argv.append(f"--bwlimit={transport.bwlimit_kb}")
    who = f"{spec.user}@{spec.host}" if spec.user else spec.host
    return [*argv, "--", f"{who}:{remote_path(spec).rstrip('/')}/", f"{dest}/"]


_NAMED = ">>refind>>"


def _written(out: str, dest: Path) -> list[Path] | None:
    """The files rsync's `--out-format` lines name (folders left out); None when a name was escaped."""
    names = [ln[len(_NAMED) :] for ln in out.splitlines() if ln.startswith(_NAMED)]
    if any("\\#" in n for n in names):  # rsync wrote an unprintable byte as \#ooo: walk instead
        return None
    return [dest / n for n in names if n and not n.endswith("/")]


def _rsync_quote(arg: str) -> str:
    """An argument of rsync's `-e` command (rsync splits it on spaces and honours quotes, no shell)."""
    if re.fullmatch(r"[\w@%+=:,./-]+", arg):
        return arg
    if "'" in arg:
        raise RemoteError(f"an ssh option with a quote cannot be passed to rsync: {arg!r}")
    return f"'{arg}'"


def _rsync_pull(spec: RemoteSpec, dest: Path, work: Path, transport: Transport, cancel) -> PullResult | None:
    """Pull with rsync; None when rsync is missing here or on the remote (the caller falls back to SFTP)."""
    if shutil.which("rsync") is None:
        return None
    code, out, err = _run(rsync_argv(spec, dest, work, transport), cancel)
    files = _stat_number(out, "Number of regular files transferred")
    got = _stat_number(out, "Total bytes received")
    if code in (0, 24):  # 24: a file vanished while the list was sent (an agent cleaning up): fine
        return PullResult(
            spec, True, None, files, got, method="rsync", mirror=dest, changed=_written(out, dest)
        )
    if cancel is not None and cancel.is_set():
        return PullResult(spec, False, "stopped before the pull finished", files, got, method="rsync")
    if "change_dir" in err or "link_stat" in err:  # the remote rsync ran: the folder is not there
        return PullResult(
            spec, False, f"{spec.path} does not exist on the host (or cannot be read)", method="rsync"
        )
    reason = failure_reason(err, spec)
    if reason:
        return PullResult(spec, False, reason, method="rsync", reachable=False)
    if code in (12, 127) and _NO_RSYNC.search(err):
        return None
    if code == 23:
        return PullResult(
            spec, False, "some remote files could not be read (the rest was pulled)", files, got, "rsync"
        )
    if code in (30, 35):
        return PullResult(spec, False, "timed out during the transfer", files, got, method="rsync")
    return PullResult(
        spec, False, _last_line(err) or f"rsync failed (exit {code})", files, got, method="rsync"
    )


def sftp_argv(spec: RemoteSpec, transport: Transport) -> list[str]:
    """`ssh ... -s -- HOST sftp`: the SFTP subsystem over the system ssh."""
    return [*transport.ssh_argv(spec), "-s", "--", _bare_host(spec), "sftp"]


def _sftp_session(spec: RemoteSpec, transport: Transport) -> remote_sftp.SftpClient:
    try:
        return remote_sftp.open_session(sftp_argv(spec, transport))
    except remote_sftp.SftpError as exc:
        text = str(exc)
        raise RemoteError(failure_reason(text, spec) or _last_line(text) or "no SFTP session") from None
    except FileNotFoundError:
        raise RemoteError("no `ssh` program here: install the OpenSSH client") from None


def _sftp_pull(spec: RemoteSpec, dest: Path, work: Path, transport: Transport, cancel) -> PullResult:
    try:
        client = _sftp_session(spec, transport)
    except RemoteError as exc:
        return PullResult(spec, False, exc.message, method="sftp", reachable=False)
    try:
        root = os.fsencode(remote_path(spec))
        try:
            if not client.stat(root).is_dir:
                return PullResult(spec, False, f"{spec.path} is not a folder on the host", method="sftp")
        except remote_sftp.SftpError:
            return PullResult(
                spec, False, f"{spec.path} does not exist on the host (or cannot be read)", method="sftp"
            )
        tally = remote_sftp.SftpTally()
        try:
            remote_sftp.mirror(client, root, dest, work / "sftp", tally, cancel)
        except remote_sftp.SftpError as exc:
            error = printable(str(exc), one_line=True)[:200]
            return PullResult(
                spec, False, error, tally.files, tally.bytes, method="sftp", changed=tally.changed
            )
        return PullResult(
            spec, True, None, tally.files, tally.bytes, method="sftp", mirror=dest, changed=tally.changed
        )
    finally:
        client.close()


def pull(
    spec: RemoteSpec,
    data_dir: Path,
    timeout: float = DEFAULT_TIMEOUT,
    transport: Transport | None = None,
    cancel: threading.Event | None = None,
) -> PullResult:
    """Bring `spec`'s mirror up to date; never raises for a host that fails (the result says why)."""
    transport = transport or Transport.from_env(timeout)
    dest = spec.mirror_dir(data_dir)
    work = work_dir(data_dir, spec)
    t0 = time.monotonic()
    with pull_lock(data_dir):
        for sub in ("partial", "tmp"):
            (work / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        for stale in (work / "tmp").iterdir():  # rsync's temp files of a pull that was killed
            stale.unlink(missing_ok=True)
        dest.mkdir(parents=True, exist_ok=True, mode=0o700)
        walk_before = begin_pull(data_dir, WORK, dest)  # a process killed from here on: walk it next time
        result = _rsync_pull(spec, dest, work, transport, cancel)
        if result is None:
            result = _sftp_pull(spec, dest, work, transport, cancel)
        if not result.reachable:
            result.changed = []  # no connection, so nothing was written
        end_pull(data_dir, WORK, dest, result.changed, walk_before)
    result.seconds = round(time.monotonic() - t0, 2)
    return result


def pull_all(
    data_dir: Path,
    timeout: float = DEFAULT_TIMEOUT,
    transport: Transport | None = None,
    cancel: threading.Event | None = None,
    on_result: Callable[[PullResult], None] | None = None,
) -> list[PullResult]:
    """Pull every remote source of the store, host by host, and record each host's status.

    A host that cannot be reached is reported once per source and its other sources are not tried."""
    store = RemoteStore(data_dir)
    results: list[PullResult] = []
    by_host: dict[str, list[RemoteSpec]] = {}
    for spec in store.list():
        by_host.setdefault(spec.host_key, []).append(spec)
    for host, specs in by_host.items():
        mine: list[PullResult] = []
        for spec in specs:
            if cancel is not None and cancel.is_set():
                break
            if mine and not mine[-1].reachable:
                r = PullResult(spec, False, mine[-1].error, reachable=False)
            else:
                r = pull(spec, data_dir, timeout, transport, cancel)
            mine.append(r)
            if on_result:
                on_result(r)
        if not mine:
            continue
        results += mine
        bad = [r for r in mine if not r.ok]
        store.set_status(
            HostStatus(
                host=host,
                ok=not bad,
                when=now_iso(),
                error=bad[0].error if bad else None,
                files=sum(r.files for r in mine),
                bytes=sum(r.bytes for r in mine),
                seconds=round(sum(r.seconds for r in mine), 2),
                method=next((r.method for r in mine if r.method), ""),
            )
        )
    return results


def mirror_roots(data_dir: Path) -> list[Path]:
    """The mirror folders of every remote source that exist (what `refind ingest` reads after a pull)."""
    return [d for d in (s.mirror_dir(data_dir) for s in RemoteStore(data_dir).list()) if d.is_dir()]


def parse_host(text: str) -> RemoteSpec:
    """`USER@HOST[:PORT]` (or an `ssh://` URL) as a RemoteSpec of that host's home folder."""
    if text.startswith("ssh://"):
        return parse_remote(text)
    return parse_remote(f"ssh://{text}/~")


def list_remote(
    host: RemoteSpec | str, candidates: Iterable[str], transport: Transport | None = None
) -> list[tuple[str, int, int]]:
    """(path, files, bytes) of each candidate folder (`~/…` or absolute) that exists on the host.

    Names and sizes only, over SFTP (links not followed); RemoteError when the host cannot be reached."""
    spec = parse_host(host) if isinstance(host, str) else host
    transport = transport or Transport.from_env()
    client = _sftp_session(spec, transport)
    found: list[tuple[str, int, int]] = []
    try:
        for path in candidates:
            if ".." in PurePosixPath(path).parts or "\x00" in path:
                continue  # a candidate never climbs out of the folder it names
            target = os.fsencode(remote_path(RemoteSpec(spec.user, spec.host, spec.port, path)))
            try:
                if not client.stat(target).is_dir:
                    continue
                files = size = 0
                for _parts, attrs in remote_sftp.walk(client, target):
                    files += 1
                    size += attrs.size
            except remote_sftp.SftpError as exc:
                if exc.code in (2, 3):  # no such file / permission denied: not there for us
                    continue
                raise RemoteError(printable(str(exc), one_line=True)[:200]) from None
            found.append((path, files, size))
    finally:
        client.close()
    return found
