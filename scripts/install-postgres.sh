#!/usr/bin/env bash
# Installs the PostgreSQL server binaries (initdb, postgres) that the event-log
# store's tests start in a temp dir, and, best effort, PgBouncer, which
# eventlog/postgres's PgBouncer test puts in front of them (docs/pgbouncer.md).
# Nothing is left running and no cluster is created: the tests run their own
# throwaway ones and skip when this fails (PostgreSQL missing fails this
# script, PgBouncer missing only says so).
set -euo pipefail

have_initdb() {
  command -v initdb >/dev/null 2>&1 && return 0
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null 2>&1
}
have_pgbouncer() { command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; }

want=()
have_initdb && echo "postgresql: initdb present" || want+=(postgresql)
have_pgbouncer && echo "pgbouncer: present" || want+=(pgbouncer)
[ ${#want[@]} = 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "no apt-get to install ${want[*]}; the suites that need them will skip" >&2
  have_initdb
  exit
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo="sudo -n"
fi
$sudo apt-get update -qq || true
for pkg in "${want[@]}"; do
  if DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null; then
    echo "$pkg: installed"
  else
    echo "$pkg: apt-get install failed" >&2
  fi
done
if [[ " ${want[*]} " = *" pgbouncer "* ]] && command -v systemctl >/dev/null 2>&1; then
  # Debian's package enables and starts a system-wide PgBouncer on port 6432;
  # the tests start their own, so the one just installed is not left running.
  $sudo systemctl disable --now pgbouncer >/dev/null 2>&1 || true
fi
have_pgbouncer || echo "pgbouncer: missing; the PgBouncer test will skip" >&2
have_initdb
