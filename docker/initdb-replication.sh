#!/bin/sh
# Run once by the postgres image when it creates the database (docker-entrypoint-initdb.d): let the replica of
# docker/compose.yml's "hosts" profile connect for streaming replication, with the same password as any client.
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
