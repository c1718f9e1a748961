"""A worker's stdout/stderr are kept within bounds: head and tail, and a count of every byte."""
import subprocess
import sys

from perflab.engine.capture import CappedOutput


def test_output_is_capped_to_head_and_tail_and_every_byte_is_counted():
    out = CappedOutput(head=1000, tail=1000)
    script = ("import sys\nsys.stdout.write('START' + 'x' * 5_000_000 + 'END')\nsys.stdout.flush()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=out)
    proc.wait()
    out.close()
    assert out.written() == out.total == 5_000_008
    text = out.text()
    assert text.startswith("START") and text.endswith("END")
    assert "[… 4998008 bytes not kept …]" in text
    assert len(text) < 2100
    assert out.text(limit=3) == "END"


def test_a_quiet_process_leaves_nothing():
    out = CappedOutput()
    subprocess.run([sys.executable, "-c", "pass"], stdout=out, check=True)
    out.close()
    assert out.written() == 0 and out.text() == ""


def test_a_byte_written_is_counted_at_once_never_missed_nor_twice():
    """`written` reads the pipe's pending bytes and the drained count under the lock the draining
    thread takes a chunk out of the pipe and counts it under: read first and counted after, a byte
    was in neither for a moment (5,516 of 20,000 one-byte writes read short on a 2-CPU VM), and a
    pending count read before the lock counted a byte twice."""
    import os
    out = CappedOutput()
    wrong = 0
    for i in range(5000):
        os.write(out.fileno(), b"x")
        wrong += out.written() != i + 1
    out.close()  # the write side: the thread reaches the pipe's end
    assert wrong == 0
    assert out.written() == 5000  # and after the pipe's end, from the count alone
