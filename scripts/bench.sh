#!/usr/bin/env bash
# Times the real hook binaries as a Codex hook, one process per event as a
# harness runs them, per event type, on event logs of 0, 10,000, 100,000 and
# 1,000,000 events (8 sessions interleaved), and prints a Markdown table:
# median and p95 wall time, median CPU time, peak RSS, each median also as a
# multiple of a Go hello-world that reads stdin (built with the same flags, run
# in the same rounds as each cell) and of /bin/true. Both binaries are built
# side by side, as a release installs them: hook-loop-hook (cmd/hook-loop-hook,
# the lean one-shot hook installs write) and hook-loop; every JSONL cell times
# both, run by run alternately. Then times the opencode plugin and the pi
# extension per tool call in a Node host of ~50 MiB and ~1 GiB: one-shot hooks
# vs the `hook-loop serve --stdio` co-process vs one spawn of the hello-world.
# Budgets (DESIGN.md, issue 30), judged on the hook-loop-hook rows: codex-hook
# ≤ 1.7× the hello-world at 10,000 events (stretch 1.5×), 1,000,000 ≤ 1.05×
# that, peak RSS ≤ 12 MiB (printed for hook-loop too, for reference); a plugin
# tool call ≤ 1× one hello-world spawn from the same host, flat (±20%) from
# 50 MiB to 1 GiB.
#
#   scripts/bench.sh                 # both tables (docs/bench.md)
#   RUNS=20 SIZES=0,10000 scripts/bench.sh
#   scripts/bench.sh -json samples.json   # extra flags go to scripts/benchrun
#   PLUGIN=0 scripts/bench.sh             # codex table only
#   PLUGIN_ONLY=1 PLUGIN_RUNS=40 PLUGIN_RSS=50,1024 scripts/bench.sh
#   BUILD_FLAGS='-tags urfave_cli_no_docs' scripts/bench.sh   # another build
#   PG=1 PLUGIN=0 SIZES=10000,1000000 scripts/bench.sh   # + each hook on PostgreSQL
#   STORE=postgres://user@host/db scripts/bench.sh        # ... on a server of yours
#   PG=1 PG_PARAMS='&synchronous_commit=off' ...           # URL parameters for PG=1's
#   STORE=postgres://... PGBOUNCER=postgres://... scripts/bench.sh  # + through your PgBouncer
#
# PG=1 starts a throwaway PostgreSQL cluster (initdb in the scratch directory,
# loopback TCP on a random port, fsync on: durable commits) and, when the system
# has pgbouncer (PGBOUNCER=0: not), a PgBouncer in front of it in transaction
# pooling mode as docs/pgbouncer.md sets one up for a fleet, and times every hook
# cell on the server and through PgBouncer too, side by side with the JSONL
# file: hook-loop, what installs write for a log in a database, each hook its
# own process and its own connection (budget, issue 30: ≤ +5 ms median over the
# JSONL log's hook-loop-hook rows at 10,000 and 1,000,000 events).
#
# By default the binaries are built as the README's install line builds them:
# CGO_ENABLED=0 go build -tags urfave_cli_no_docs -trimpath -ldflags='-s -w'.
# The pi rows need pi's jiti loader (scripts/install-harnesses.sh pi;
# HOOK_LOOP_HARNESS_DIR, default .cache/harnesses).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The logs' keys (eventlog) live and die with the temporary logs.
export HOOK_LOOP_STATE_DIR="$tmp/state"
if [ -z "${BUILD_FLAGS+set}" ]; then
  export CGO_ENABLED="${CGO_ENABLED:-0}"
  flags=(-tags urfave_cli_no_docs -trimpath "-ldflags=-s -w")
else
  # shellcheck disable=SC2206
  flags=(${BUILD_FLAGS})
fi
# Side by side in one directory, as installs find them (the lean binary execs
# hook-loop beside it for what it does not carry).
go build "${flags[@]}" -o "$tmp/hook-loop" .
go build "${flags[@]}" -o "$tmp/hook-loop-hook" ./cmd/hook-loop-hook
go build "${flags[@]}" -o "$tmp/hello" ./scripts/benchrun/hello
echo "built with: go build ${flags[*]} (CGO_ENABLED=${CGO_ENABLED:-})" >&2
go build -o "$tmp/benchrun" ./scripts/benchrun
store_flags=()
if [ "${PG:-}" = 1 ] && [ -z "${STORE:-}" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
    pgbin=$(dirname "$(command -v initdb || echo /nonexistent/initdb)")
  fi
  [ -x "$pgbin/initdb" ] || { echo "PG=1: no initdb (scripts/install-postgres.sh installs PostgreSQL)" >&2; exit 1; }
  pgdir="$tmp/pg"
  mkdir -p "$pgdir"
  chmod 755 "$tmp" "$pgdir"
  pgrun=()
  if [ "$(id -u)" = 0 ]; then # PostgreSQL refuses to run as root
    chown postgres "$pgdir"
    pgrun=(runuser -u postgres --)
  fi
  "${pgrun[@]}" "$pgbin/initdb" -D "$pgdir/data" -A trust -U hookloop -E UTF8 --locale=C --no-sync >/dev/null
  pgport=$((20000 + RANDOM % 20000))
  "${pgrun[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
    -o "-k $pgdir -p $pgport -c listen_addresses=127.0.0.1 -c fsync=on" start >/dev/null
  trap '"${pgrun[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  STORE="postgres://hookloop@127.0.0.1:$pgport/postgres?sslmode=disable${PG_PARAMS:-}"
  echo "PG=1: throwaway PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') at $STORE" >&2
  # Debian installs it in /usr/sbin, which a user's PATH often lacks.
  pgbouncer=$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true)
  if [ -n "$pgbouncer" ] && [ "${PGBOUNCER:-}" != 0 ]; then
    # The settings docs/pgbouncer.md gives a fleet, with trust on loopback.
    bport=$((pgport + 1))
    printf '%s\n' '[databases]' "postgres = host=127.0.0.1 port=$pgport dbname=postgres" \
      '[pgbouncer]' 'listen_addr = 127.0.0.1' "listen_port = $bport" 'unix_socket_dir =' \
      'auth_type = trust' "auth_file = $pgdir/userlist.txt" 'pool_mode = transaction' \
      'default_pool_size = 4' 'max_client_conn = 100' \
      'ignore_startup_parameters = lock_timeout,statement_timeout,idle_in_transaction_session_timeout' \
      "pidfile = $pgdir/pgbouncer.pid" "logfile = $pgdir/pgbouncer.log" >"$pgdir/pgbouncer.ini"
    echo '"hookloop" ""' >"$pgdir/userlist.txt"
    if [ "$(id -u)" = 0 ]; then chown postgres "$pgdir/pgbouncer.ini" "$pgdir/userlist.txt"; fi
    "${pgrun[@]}" "$pgbouncer" -d "$pgdir/pgbouncer.ini"
    trap '"${pgrun[@]}" kill "$(cat "$pgdir/pgbouncer.pid" 2>/dev/null)" 2>/dev/null || true; "${pgrun[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
    for _ in $(seq 50); do [ -s "$pgdir/pgbouncer.pid" ] && break; sleep 0.1; done
    [ -s "$pgdir/pgbouncer.pid" ] || { echo "PG=1: PgBouncer did not start:" >&2; cat "$pgdir/pgbouncer.log" >&2; exit 1; }
    PGBOUNCER="postgres://hookloop@127.0.0.1:$bport/postgres?sslmode=disable${PG_PARAMS:-}"
    echo "PG=1: PgBouncer $("$pgbouncer" --version | head -1 | awk '{print $2}') in front of it at $PGBOUNCER" >&2
  else
    echo "PG=1: no pgbouncer here (scripts/install-postgres.sh installs it): timing the server only" >&2
  fi
fi
if [ -n "${STORE:-}" ]; then
  store_flags=(-store "$STORE")
  if [ -n "${PGBOUNCER:-}" ] && [ "$PGBOUNCER" != 0 ]; then
    store_flags+=(-pgbouncer "$PGBOUNCER")
  fi
fi
if [ -z "${PLUGIN_ONLY:-}" ]; then
  "$tmp/benchrun" -bin "$tmp/hook-loop-hook" -full "$tmp/hook-loop" -hello "$tmp/hello" -work "$tmp/work" \
    -runs "${RUNS:-50}" -sizes "${SIZES:-0,10000,100000,1000000}" "${store_flags[@]}" "$@"
fi
if [ "${PLUGIN:-1}" != 0 ]; then
  if ! command -v node >/dev/null; then
    echo "skipping the plugin benchmark: node not found" >&2
    exit 0
  fi
  echo
  "$tmp/benchrun" plugin -bin "$tmp/hook-loop" -hello "$tmp/hello" -work "$tmp/plugin" \
    -harness-dir "${HOOK_LOOP_HARNESS_DIR:-.cache/harnesses}" \
    -runs "${PLUGIN_RUNS:-40}" -rss "${PLUGIN_RSS:-50,1024}"
fi
