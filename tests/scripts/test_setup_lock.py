"""setup.sh waits for the package manager's lock (issue 33): scripts/wait_for_apt.sh.

A helper process holds a lock file the way apt and dpkg do (an fcntl record lock) and the
script is pointed at that file (`KOMASYNC_APT_LOCKS`), so no root and no real dpkg lock.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WAIT = ROOT / "scripts" / "wait_for_apt.sh"

# Holds an fcntl lock on argv[1], says so, keeps it argv[2] seconds (or until killed).
HOLDER = """
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.lockf(f, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@contextmanager
def held(lock: Path, seconds: float) -> Iterator[subprocess.Popen[str]]:
    """Another process holding `lock` for `seconds`, then releasing it by ending."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait(5)


def wait_for_apt(lock: Path, wait: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KOMASYNC_APT_LOCKS": f"{lock.parent / 'absent'} {lock}",
           "KOMASYNC_APT_WAIT": str(wait), "KOMASYNC_APT_STEP": "0.2"}
    return subprocess.run(["bash", str(WAIT)], env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_held_lock_is_waited_for_and_setup_goes_on_once_it_is_released(tmp_path: Path) -> None:
    lock = tmp_path / "lock-frontend"
    with held(lock, 2) as holder:
        result = wait_for_apt(lock, 600)
        # The holder had ended (its 2 s run out) before the script went on: it waited.
        assert holder.poll() == 0
    assert result.returncode == 0, result.stderr
    said = result.stderr.splitlines()
    assert f"PID {holder.pid}" in said[0] and str(lock) in said[0]
    assert "待ちます" in said[0] and "waiting up to 600 s" in said[0]
    assert "ロックが解放されました" in said[-1] and "going on" in said[-1]


def test_a_lock_held_past_the_bound_gives_up_with_what_to_do(tmp_path: Path) -> None:
    lock = tmp_path / "lock-frontend"
    with held(lock, 60) as holder:
        result = wait_for_apt(lock, 1)
        assert holder.poll() is None  # still held: the script gave up, it did not see it free
    assert result.returncode == 1
    last = result.stderr.splitlines()[-1]
    assert "解放されません" in last and "still held after 1 s" in last
    assert "KOMASYNC_APT_WAIT" in last and f"PID {holder.pid}" in last


def test_no_lock_held_says_nothing(tmp_path: Path) -> None:
    lock = tmp_path / "lock-frontend"
    lock.touch()
    result = wait_for_apt(lock, 600)
    assert (result.returncode, result.stderr) == (0, "")


def test_setup_waits_for_the_lock_before_every_apt_get() -> None:
    """Every script that runs apt-get calls the wait first (and apt waits as long itself)."""
    for name in ("setup.sh", "venv.sh"):
        text = (ROOT / "scripts" / name).read_text("utf-8")
        first_apt = text.index("apt-get ")
        assert "wait_for_apt.sh" in text[:first_apt], name
    assert "DPkg::Lock::Timeout" in (ROOT / "scripts" / "setup.sh").read_text("utf-8")
