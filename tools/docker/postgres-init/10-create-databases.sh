#!/usr/bin/env bash
# Run once by the postgres image on an empty data directory (docker-entrypoint-initdb.d):
# one role and one database per service, each service owning only its own database.
set -euo pipefail

create_service_database() {
  local name=$1 password=$2
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v name="$name" -v password="$password" <<'SQL'
CREATE ROLE :"name" LOGIN PASSWORD :'password';
CREATE DATABASE :"name" OWNER :"name";
REVOKE ALL ON DATABASE :"name" FROM PUBLIC;
SQL
}

create_service_database card_issue "${CARD_ISSUE_DB_PASSWORD:-card_issue}"
create_service_database client_registration "${CLIENT_REGISTRATION_DB_PASSWORD:-client_registration}"
