#!/usr/bin/env bash
# Start a local PostgreSQL server for the many-worker tests and print its URL on stdout:
#
#     VPBO_POSTGRES_URL="$(bash .ci/postgres.sh)" && export VPBO_POSTGRES_URL
#
# Installs Debian's `postgresql` if missing, creates a cluster if there is none, starts it if it
# is down, and creates the user and database `vpbo` (password `vpbo`) if missing. Idempotent: a
# running server, an existing user and database are kept. Run as root on Debian (pg_ctlcluster
# starts the server as the `postgres` user). The URL names the psycopg2 driver (PyPI
# `psycopg2-binary`, in the `test` extra). Everything but the URL goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name=vpbo
password=vpbo

if ! command -v pg_lsclusters >/dev/null 2>&1 || ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then
    bash "$here/system-packages.sh" postgresql
fi

# The first cluster (installing the package creates "main"); create one when there is none.
cluster="$(pg_lsclusters --no-header | head -n 1)"
if [ -z "$cluster" ]; then
    version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
    echo "postgres: creating cluster $version/main" >&2
    pg_createcluster "$version" main >&2
    cluster="$(pg_lsclusters --no-header | head -n 1)"
fi
read -r version cluster_name port status _ <<<"$cluster"
case "$status" in
    online*) echo "postgres: cluster $version/$cluster_name already running on port $port" >&2 ;;
    *)
        echo "postgres: starting cluster $version/$cluster_name on port $port" >&2
        pg_ctlcluster "$version" "$cluster_name" start >&2
        ;;
esac
pg_isready --quiet --host 127.0.0.1 --port "$port" --timeout 60 || {
    echo "postgres: the server on port $port is not ready after 60 s" >&2
    exit 1
}

# The superuser `postgres` through the Unix socket (peer authentication), from a readable folder.
admin() { (cd / && runuser -u postgres -- psql --port "$port" --no-psqlrc -v ON_ERROR_STOP=1 -qtA "$@"); }
if [ "$(admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$name'")" != 1 ]; then
    admin -c "CREATE ROLE $name LOGIN PASSWORD '$password'"
fi
if [ "$(admin -c "SELECT 1 FROM pg_database WHERE datname = '$name'")" != 1 ]; then
    admin -c "CREATE DATABASE $name OWNER $name"
fi
echo "postgresql+psycopg2://$name:$password@127.0.0.1:$port/$name"
