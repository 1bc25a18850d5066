#!/usr/bin/env bash
# explain.sh - show the execution plan of a SQL query on PostgreSQL or SQLite.
#
# PostgreSQL: runs EXPLAIN (ANALYZE, BUFFERS) through psql inside a
#             transaction that is always rolled back.
# SQLite:     runs EXPLAIN QUERY PLAN through sqlite3 on a read-only handle.
#
# Run with --help for usage.

set -euo pipefail

PROG=$(basename "$0")

usage() {
  cat <<EOF
Usage:
  $PROG [options] pg     <dbname|conninfo|URI> <query|@file.sql|->
  $PROG [options] sqlite <database-file>       <query|@file.sql|->

Show the execution plan for a query.

Engines:
  pg, postgres, postgresql   psql -c "EXPLAIN (ANALYZE, BUFFERS) <query>"
                             The query IS executed (that is what ANALYZE
                             means), inside BEGIN ... ROLLBACK, so data
                             changes are undone - but locks, sequence
                             increments and side effects of functions are not.
  sqlite, sqlite3            sqlite3 -readonly <db> "EXPLAIN QUERY PLAN <query>"
                             The query is not executed.

Query argument:
  'SELECT ...'   the SQL text itself
  @path.sql      read the query from a file
  -              read the query from standard input

Options:
  -n, --no-analyze     PostgreSQL: plain EXPLAIN, do not execute the query
  -F, --format FMT     PostgreSQL: text (default), json, yaml or xml
  -V, --verbose        PostgreSQL: add VERBOSE (output columns, schema names)
  -S, --settings       PostgreSQL 12+: add SETTINGS (non-default planner GUCs)
  -t, --time           SQLite: also run the query once and print its run time
                       (rows are discarded)
  -h, --help           show this help

Connection details for PostgreSQL can also come from the usual PGHOST,
PGPORT, PGUSER, PGPASSWORD / ~/.pgpass environment; pass "" as the target
to rely on them entirely.

Examples:
  $PROG pg shop "SELECT * FROM orders WHERE customer_id = 42"
  $PROG pg postgresql://app@db.internal:5432/shop @slow_query.sql
  $PROG -n -F json pg shop - < report.sql > plan.json
  $PROG sqlite ./app.db "SELECT * FROM events WHERE user_id = 7 ORDER BY ts DESC"
  $PROG -t sqlite ./app.db @slow_query.sql
EOF
}

die() {
  printf '%s: %s\n' "$PROG" "$1" >&2
  printf "Try '%s --help' for usage.\n" "$PROG" >&2
  exit 2
}

analyze=1
format=text
verbose=0
settings=0
timeit=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -n|--no-analyze) analyze=0; shift ;;
    -F|--format)
      [[ $# -ge 2 ]] || die "option $1 needs a value"
      format=$2; shift 2 ;;
    --format=*) format=${1#*=}; shift ;;
    -V|--verbose) verbose=1; shift ;;
    -S|--settings) settings=1; shift ;;
    -t|--time) timeit=1; shift ;;
    --) shift; break ;;
    -?*) die "unknown option: $1" ;;
    *) break ;;
  esac
done

[[ $# -eq 3 ]] || { usage >&2; exit 2; }

engine=$1
target=$2
query_arg=$3

# Resolve the query text.
case "$query_arg" in
  -)  query=$(cat) ;;
  @*) qfile=${query_arg#@}
      [[ -r "$qfile" ]] || die "cannot read query file: $qfile"
      query=$(cat -- "$qfile") ;;
  *)  query=$query_arg ;;
esac

# Trim surrounding whitespace and trailing semicolons.
query="${query%"${query##*[![:space:];]}"}"
query="${query#"${query%%[![:space:]]*}"}"
[[ -n "$query" ]] || die "empty query"

if [[ "$query" =~ ^[[:space:]]*[Ee][Xx][Pp][Ll][Aa][Ii][Nn][[:space:]] ]]; then
  die "pass the query without EXPLAIN; this script adds it"
fi

case "$engine" in
  pg|postgres|postgresql)
    command -v psql >/dev/null 2>&1 || die "psql not found in PATH"
    case "$format" in
      text|json|yaml|xml) ;;
      *) die "unsupported format: $format (use text, json, yaml or xml)" ;;
    esac

    opts=()
    if [[ $analyze -eq 1 ]]; then
      opts+=("ANALYZE" "BUFFERS")
    fi
    [[ $verbose -eq 1 ]] && opts+=("VERBOSE")
    [[ $settings -eq 1 ]] && opts+=("SETTINGS")
    [[ "$format" != text ]] && opts+=("FORMAT ${format^^}")

    explain="EXPLAIN"
    if [[ ${#opts[@]} -gt 0 ]]; then
      joined=$(IFS=,; printf '%s' "${opts[*]}")
      explain="EXPLAIN (${joined//,/, })"
    fi

    psql_args=(--no-psqlrc --quiet --set ON_ERROR_STOP=1)
    [[ -n "$target" ]] && psql_args+=(--dbname "$target")
    # Unaligned, tuples-only output keeps JSON/YAML plans machine-readable.
    [[ "$format" != text ]] && psql_args+=(--no-align --tuples-only)

    if [[ $analyze -eq 1 ]]; then
      exec psql "${psql_args[@]}" \
        -c "BEGIN" \
        -c "$explain $query" \
        -c "ROLLBACK"
    else
      exec psql "${psql_args[@]}" -c "$explain $query"
    fi
    ;;

  sqlite|sqlite3)
    command -v sqlite3 >/dev/null 2>&1 || die "sqlite3 not found in PATH"
    [[ -f "$target" ]] || die "database file not found: $target"
    if [[ "$format" != text || $verbose -eq 1 || $settings -eq 1 ]]; then
      printf '%s: note: -F, -V and -S apply to PostgreSQL only; ignored\n' "$PROG" >&2
    fi

    sqlite3 -readonly -bail "$target" "EXPLAIN QUERY PLAN $query;"

    if [[ $timeit -eq 1 ]]; then
      echo
      echo "Timing (query executed once, read-only, rows discarded):"
      # The timer only reports for input read from stdin, so feed the
      # commands that way. -readonly makes write statements fail here.
      printf '.timer on\n.output /dev/null\n%s;\n' "$query" |
        sqlite3 -readonly -bail "$target"
    fi
    ;;

  *)
    die "unknown engine: $engine (use pg or sqlite)"
    ;;
esac
