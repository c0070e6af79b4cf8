#!/usr/bin/env bash
# Installs the PostgreSQL server binaries (initdb, postgres) that the event-log
# store's tests start in a temp dir. Nothing is started here and no cluster is
# created: the tests run their own throwaway one and skip when this fails.
set -euo pipefail

have_initdb() {
  command -v initdb >/dev/null 2>&1 && return 0
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null 2>&1
}

if have_initdb; then
  echo "postgresql: initdb present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "postgresql: initdb missing and no apt-get; PostgreSQL suites will skip" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo="sudo -n"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
have_initdb && echo "postgresql: installed"
