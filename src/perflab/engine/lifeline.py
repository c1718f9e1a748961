"""A worker's whole process group dies with the host, however the host dies.

Each worker runs in its own process group (its own session), with the benchmark's child processes
in it. The host keeps the write end of a pipe per worker and the worker inherits the read end, which
the host arms with the kernel's O_ASYNC notification: when the last write end closes, the kernel
sends a signal to the read end's owner, and the owner is the worker's process group and the signal
SIGKILL (F_SETOWN -pgid, F_SETSIG SIGKILL). The write end closes when the host closes it (`cut`, once
a launch is done) or when the host process ends for any reason — kill -9 included — since the
kernel closes a dead process's files.

The host keeps its own copy of the read end until `cut`: the notification belongs to the open read
end, which would otherwise go away with the worker's exit, and then a child process the benchmark
left behind would not be killed when its case ends. (If the host dies in the moment between a
worker's exit and its `cut`, whether that child is killed depends on the order the kernel closes
the dead host's files in.)

Nothing runs in the worker for it: no watchdog thread (a Python benchmark in a long C call holds
the GIL, a Node benchmark blocks the event loop, …) and no helper process. prctl(PR_SET_PDEATHSIG)
would not do: it fires when the parent *thread* exits, and the host starts workers from pool threads.
The owner is held by the kernel as the group itself, not its number, so a group that is gone and a
number reused later are never confused. A descendant that leaves the group (setsid) escapes.

There is no window in which the host could die unarmed with a benchmark running: the worker runs
no benchmark code before the host's `load`, and `arm` happens right after the process starts; a
worker whose host died before that cannot connect and exits.
"""
from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import tempfile

from . import proctree

# F_SETSIG is Linux's; elsewhere workers still die when their socket closes, between two calls
SUPPORTED = hasattr(fcntl, "F_SETSIG") and hasattr(os, "O_ASYNC")


class Lifeline:
    """The pipe tying one worker's process group to the host."""

    def __init__(self) -> None:
        self.read_fd: int | None = None
        self._write_fd: int | None = None
        if SUPPORTED:
            # both ends close-on-exec: only the worker gets the read end (Popen's pass_fds), and no
            # other child keeps a write end, which would keep the worker alive after the host
            self.read_fd, self._write_fd = os.pipe()

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self.read_fd,) if self.read_fd is not None else ()

    def arm(self, pgid: int) -> None:
        """The worker has started, as the leader of process group `pgid`: make the kernel SIGKILL
        that group when the write end closes."""
        if self.read_fd is not None:
            fcntl.fcntl(self.read_fd, fcntl.F_SETSIG, signal.SIGKILL)
            fcntl.fcntl(self.read_fd, fcntl.F_SETOWN, -pgid)
            flags = fcntl.fcntl(self.read_fd, fcntl.F_GETFL)
            fcntl.fcntl(self.read_fd, fcntl.F_SETFL, flags | os.O_ASYNC)

    def cut(self) -> None:
        """Kill what is left of the group (the benchmark's child processes, once the worker has
        exited) by closing the write end, then let the read end go. Safe to call again."""
        for name in ("_write_fd", "read_fd"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                os.close(fd)


def run(argv: list[str], timeout: float, **popen_kwargs) -> subprocess.CompletedProcess:
    """`subprocess.run(argv, capture_output=True, text=True, timeout=timeout)` for a process that
    runs benchmark code outside a worker (Go's sub-benchmark discovery): in its own process group,
    tied to the host by a lifeline, and the whole group gone when it returns or times out. Its
    output goes to files, not pipes: a child process it left holding a pipe would keep the wait for
    the pipe's end going until the timeout."""
    line = Lifeline()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True,
                                    pass_fds=line.pass_fds, **popen_kwargs)
        except BaseException:
            line.cut()
            raise
        proctree.started(proc.pid)  # its CPU time is perflab's own (engine/host.py)
        try:
            line.arm(proc.pid)
            proc.wait(timeout)
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)  # not reaped yet: the group is still this one
            proc.wait()
            raise
        finally:
            proctree.forget(proc.pid)
            line.cut()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, proc.returncode, out.read().decode(errors="replace"),
                                           err.read().decode(errors="replace"))
