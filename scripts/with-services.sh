#!/usr/bin/env bash
# Run a command next to a throwaway PostgreSQL and Redis, for the tests that need real servers
# and for the loopback cluster:
#   scripts/with-services.sh .venv/bin/pytest [args…]        (`make test` does this)
#   scripts/with-services.sh .venv/bin/python -m scripts.cluster   (`make cluster` does this)
# Installs Debian's postgresql, redis-server and haproxy when missing (apt-get, as root;
# otherwise it says what to install), starts PostgreSQL and Redis on free ports of 127.0.0.1
# with password authentication and their data in a temporary directory, exports
# THREADWISE_TEST_POSTGRES_URL and THREADWISE_TEST_REDIS_URL, runs the command, then stops both
# and deletes their data, whatever the command's outcome. Nothing is left running and nothing
# is written to the tree. (HAProxy is not started here: tests/deploy and scripts/cluster.py
# run their own.)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1mwith-services:\033[0m %s\n' "$*" >&2; }

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS…]   (e.g. $0 .venv/bin/pytest tests/auth)" >&2
  exit 2
fi

pg_bindir() {
  # Debian keeps the server binaries out of PATH, one directory per major version.
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  return 1
}

# --- system packages -------------------------------------------------------------------------
missing=()
pg_bindir >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# HAProxy checks deploy/haproxy.cfg (tests/deploy); Debian installs it in /usr/sbin.
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  else
    echo "with-services: missing ${missing[*]}: the PostgreSQL, Redis and HAProxy tests need them." >&2
    echo "       Install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}) and run this again." >&2
    exit 1
  fi
fi
PG_BIN=$(pg_bindir)

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
secret() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }

# PostgreSQL refuses to run as root: as root, it runs as the package's own user.
as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

state=$(mktemp -d "${TMPDIR:-/tmp}/threadwise-services.XXXXXX")
pg_data="$state/postgres"
redis_dir="$state/redis"
mkdir -p "$pg_data" "$redis_dir"
chmod 711 "$state"  # the server user must reach its data directory
chmod 700 "$pg_data" "$redis_dir"
[ "$(id -u)" -eq 0 ] && chown postgres: "$pg_data"

pg_started=0
redis_started=0
cleanup() {
  if [ "$pg_started" -eq 1 ]; then
    as_server_user "$PG_BIN/pg_ctl" -D "$pg_data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ "$redis_started" -eq 1 ] && [ -f "$redis_dir/redis.pid" ]; then
    kill "$(cat "$redis_dir/redis.pid")" 2>/dev/null || true
  fi
  rm -rf "$state"
}
trap cleanup EXIT

# --- PostgreSQL ------------------------------------------------------------------------------
pg_port=$(free_port)
pg_password=$(secret)
printf '%s\n' "$pg_password" > "$state/pg-password"
[ "$(id -u)" -eq 0 ] && chown postgres: "$state/pg-password"
as_server_user "$PG_BIN/initdb" -D "$pg_data" -U threadwise --pwfile="$state/pg-password" \
  --auth=scram-sha-256 -E UTF8 --no-locale --no-sync >"$state/initdb.log" 2>&1 \
  || { cat "$state/initdb.log" >&2; exit 1; }
rm -f "$state/pg-password"
# Durability is pointless for a throwaway server; the socket directory is ours, not /run.
if ! as_server_user "$PG_BIN/pg_ctl" -D "$pg_data" -w -t 60 -l "$pg_data/server.log" \
  -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pg_data -c fsync=off \
      -c synchronous_commit=off -c full_page_writes=off" start >/dev/null; then
  cat "$pg_data/server.log" >&2
  exit 1
fi
pg_started=1

# --- Redis -----------------------------------------------------------------------------------
redis_port=$(free_port)
redis_password=$(secret)
printf 'port %s\nbind 127.0.0.1\nprotected-mode yes\nrequirepass %s\nsave ""\nappendonly no\n' \
  "$redis_port" "$redis_password" > "$redis_dir/redis.conf"
printf 'dir %s\npidfile %s\nlogfile %s\ndaemonize yes\n' \
  "$redis_dir" "$redis_dir/redis.pid" "$redis_dir/redis.log" >> "$redis_dir/redis.conf"
redis-server "$redis_dir/redis.conf"
redis_started=1
for _ in $(seq 1 100); do
  [ -f "$redis_dir/redis.pid" ] && break
  sleep 0.05
done
[ -f "$redis_dir/redis.pid" ] || { cat "$redis_dir/redis.log" >&2; exit 1; }

export THREADWISE_TEST_POSTGRES_URL="postgresql+psycopg://threadwise:$pg_password@127.0.0.1:$pg_port/postgres"
export THREADWISE_TEST_REDIS_URL="redis://:$redis_password@127.0.0.1:$redis_port/0"
say "PostgreSQL on 127.0.0.1:$pg_port, Redis on 127.0.0.1:$redis_port (data in $state)"

status=0
"$@" || status=$?
exit "$status"
