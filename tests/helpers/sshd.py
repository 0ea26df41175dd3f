"""A real OpenSSH server on 127.0.0.1 and a random port, with throwaway host and user keys.

`SshServer.start(folder)` writes its own sshd_config, host key, user key, authorized_keys, and a
client ssh_config with a known_hosts that names that host key (REFIND_SSH_CONFIG points refind at it),
so the person's real `~/.ssh` is never read or written. `stop()` / `start_again()` take the server
down and up on the same port (the "host down" tests). Skips (with the reason) only when the OpenSSH
binaries are not installed; `.ci/run` installs them.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
ALIAS = "refind-test-box"
"""A Host alias of the client config that names this server (HostName 127.0.0.1, its Port)."""
SFTP_SERVER_CANDIDATES = (
    "/usr/lib/openssh/sftp-server",
    "/usr/libexec/openssh/sftp-server",
    "/usr/libexec/sftp-server",
)


def missing_binaries() -> list[str]:
    """The OpenSSH and rsync programs these tests need that are not installed."""
    missing = [b for b in ("ssh", "ssh-keygen", "rsync") if shutil.which(b) is None]
    if not os.path.exists(SSHD):
        missing.append(SSHD)
    return missing


def skip_without_openssh() -> None:
    """Skip the calling test when sshd, ssh or rsync is absent (CI installs them in `.ci/run`)."""
    missing = missing_binaries()
    if missing:
        pytest.skip(f"needs OpenSSH server/client and rsync (missing: {', '.join(missing)}; see .ci/run)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "refind-test", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return (path.with_suffix(".pub") if path.suffix else Path(f"{path}.pub")).read_text().strip()


class SshServer:
    """One sshd process and the client-side files that reach it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.user = getpass.getuser()
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log = folder / "sshd.log"
        host_key = folder / "host_key"
        user_key = folder / "user_key"
        host_pub = _keygen(host_key)
        user_pub = _keygen(user_key)
        (folder / "authorized_keys").write_text(user_pub + "\n")
        sftp = next((p for p in SFTP_SERVER_CANDIDATES if os.path.exists(p)), "internal-sftp")
        self.config = folder / "sshd_config"
        self.config.write_text(
            "\n".join(
                [
                    f"Port {self.port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {host_key}",
                    f"AuthorizedKeysFile {folder / 'authorized_keys'}",
                    f"PidFile {folder / 'sshd.pid'}",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "PermitRootLogin prohibit-password",
                    "StrictModes no",
                    "UsePAM no",
                    "PrintMotd no",
                    "LogLevel ERROR",
                    f"Subsystem sftp {sftp}",
                    "",
                ]
            )
        )
        self.known_hosts = folder / "known_hosts"
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {host_pub}\n")
        self.client_config = folder / "ssh_config"
        self.client_config.write_text(
            "\n".join(
                [
                    "Host *",
                    f"  IdentityFile {user_key}",
                    "  IdentitiesOnly yes",
                    "  IdentityAgent none",
                    f"  UserKnownHostsFile {self.known_hosts}",
                    "  GlobalKnownHostsFile /dev/null",
                    "  StrictHostKeyChecking yes",
                    "  UpdateHostKeys no",
                    "  LogLevel ERROR",
                    f"Host {ALIAS}",  # a Host alias, as people write in ~/.ssh/config
                    "  HostName 127.0.0.1",
                    f"  Port {self.port}",
                    "  RequestTTY force",  # written for interactive use: refind's pulls must not mind
                    "  ForwardAgent yes",
                    "",
                ]
            )
        )

    def url(self, path: Path | str) -> str:
        """`ssh://USER@127.0.0.1:PORT/PATH` of a folder on this server."""
        return f"ssh://{self.user}@127.0.0.1:{self.port}{path}"

    @property
    def host_key(self) -> str:
        """What `RemoteSpec.host_key` is for this server."""
        return f"{self.user}@127.0.0.1:{self.port}"

    def start(self) -> SshServer:
        """Start sshd in the foreground (its own process group) and wait until it takes connections."""
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(self.config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited at start: {self.log.read_text()[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("sshd did not listen within 10 s")

    def stop(self) -> None:
        """Stop sshd and every session it started (the host is down: connection refused)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def ssh(self, *command: str) -> subprocess.CompletedProcess:
        """Run a fixed command on the server as the test user (a check that the server works)."""
        return subprocess.run(
            [
                "ssh",
                "-F",
                str(self.client_config),
                "-p",
                str(self.port),
                "-o",
                "BatchMode=yes",
                f"{self.user}@127.0.0.1",
                *command,
            ],
            capture_output=True,
            text=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
        )
