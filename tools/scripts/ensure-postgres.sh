#!/usr/bin/env bash
# Makes sure a local PostgreSQL answers on 127.0.0.1:5432 and has a "test" database.
# Used by .ci/run; harmless to run by hand.
set -euo pipefail
HOST=${PGHOST:-127.0.0.1}
PORT=${PGPORT:-5432}

if ! pg_isready -h "$HOST" -p "$PORT" -q; then
  echo "PostgreSQL is down; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || true
fi
for _ in $(seq 1 60); do
  pg_isready -h "$HOST" -p "$PORT" -q && break
  sleep 1
done
pg_isready -h "$HOST" -p "$PORT"

psql -h "$HOST" -p "$PORT" -U postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 ||
  psql -h "$HOST" -p "$PORT" -U postgres -c 'CREATE DATABASE test'

# Throw-away databases left behind by an interrupted test run.
for db in $(psql -h "$HOST" -p "$PORT" -U postgres -Atc "SELECT datname FROM pg_database WHERE datname LIKE 'test\_%'"); do
  psql -h "$HOST" -p "$PORT" -U postgres -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"
done
