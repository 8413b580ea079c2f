#!/usr/bin/env bash
# Waits until no other program holds the package manager's locks, so `apt-get` does not fail
# at once with "Unable to acquire the dpkg frontend lock" (issue 33): on a newly booted
# machine the system's automatic updates often hold them for minutes.
#
#   KOMASYNC_APT_WAIT   seconds to wait at most (default 600); then exit 1 with what to do
#   KOMASYNC_APT_LOCKS  the lock files, space-separated (default: dpkg's frontend lock, dpkg's
#                       lock and apt's lists lock; the tests point it at a file of their own)
#
# apt and dpkg hold their locks as fcntl (POSIX) record locks, which flock(1) does not see;
# python3 asks the kernel (F_GETLK) who holds each, which needs no write access (no root).
set -euo pipefail

wait_max=${KOMASYNC_APT_WAIT:-600}
locks=${KOMASYNC_APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock}
step=${KOMASYNC_APT_STEP:-1}  # seconds between looks

# Prints "PID NAME" of a process holding a lock on one of the files, nothing when all are free.
holder() {
  python3 - $locks <<'PY'
import fcntl, os, struct, sys
for path in sys.argv[1:]:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # no such lock file: nobody holds it
        continue
    try:
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (native layout)
        probe = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
        got = fcntl.fcntl(fd, fcntl.F_GETLK, probe + b"\0" * 8)
        kind, _, _, _, pid = struct.unpack("hhqqi", got[: struct.calcsize("hhqqi")])
    finally:
        os.close(fd)
    if kind != fcntl.F_UNLCK:
        try:
            name = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            name = "?"
        print(pid, name, path)
        break
PY
}

who=$(holder)
[ -z "$who" ] && exit 0
read -r pid name path <<<"$who"
echo "komasync: パッケージマネージャーのロック（$path）を他のプログラム（PID $pid $name）が使っています。" \
     "終わるまで最大 ${wait_max} 秒待ちます（KOMASYNC_APT_WAIT で変更可）。" \
     "/ Another program (PID $pid $name) holds the package manager's lock ($path);" \
     "waiting up to ${wait_max} s for it to finish (change with KOMASYNC_APT_WAIT)." >&2
start=$SECONDS
said=$SECONDS
while who=$(holder) && [ -n "$who" ]; do
  if (( SECONDS - start >= wait_max )); then
    read -r pid name path <<<"$who"
    echo "komasync: ${wait_max} 秒待ってもロック（$path）が解放されません（PID $pid $name）。" \
         "自動更新なら終わるまで待ってからもう一度実行するか、KOMASYNC_APT_WAIT で待ち時間を延ばしてください。" \
         "/ The lock ($path) is still held after ${wait_max} s (PID $pid $name)." \
         "If it is the automatic updates, let them finish and run this again, or wait longer with" \
         "KOMASYNC_APT_WAIT." >&2
    exit 1
  fi
  if (( SECONDS - said >= 30 )); then
    echo "komasync: まだ待っています（$((SECONDS - start)) 秒）/ still waiting ($((SECONDS - start)) s)" >&2
    said=$SECONDS
  fi
  sleep "$step"
done
echo "komasync: ロックが解放されました。続けます。/ The lock is free; going on." >&2
