#!/usr/bin/env bash
# Functions longer than a limit (default 80 lines, signature to closing brace)
# in the given Rust sources. Relies on rustfmt layout: a fn's closing brace
# sits alone at the indentation of its `fn` line. Exit 1 if any is longer.
#   scripts/fn-lengths.sh [LIMIT] FILE...
#   scripts/fn-lengths.sh 80 $(find macros/src -name '*.rs')
set -euo pipefail
limit=80
if [[ ${1:-} =~ ^[0-9]+$ ]]; then limit=$1; shift; fi
awk -v limit="$limit" '
    FNR == 1 { depth = 0 }
    # A fn item with a body: `fn name(` at any visibility, not a `;` decl.
    /^ *(pub(\([a-z]+\))? )?(const )?(async )?(unsafe )?fn [A-Za-z_][A-Za-z0-9_]*/ && !/;[[:space:]]*$/ {
        match($0, /^ */); indent = substr($0, 1, RLENGTH)
        match($0, /fn [A-Za-z_][A-Za-z0-9_]*/); fname = substr($0, RSTART + 3, RLENGTH - 3)
        if ($0 ~ /\{/ && $0 ~ /\}[[:space:]]*$/) next  # a one-line fn
        depth++; ind[depth] = indent; start[depth] = FNR; name[depth] = fname
        next
    }
    depth > 0 && $0 == ind[depth] "}" {
        n = FNR - start[depth] + 1
        if (n > limit) { printf "%s:%d: fn %s is %d lines (limit %d)\n", FILENAME, start[depth], name[depth], n, limit; bad = 1 }
        depth--
    }
    END { if (!bad) print "no fn over " limit " lines"; exit bad }
' "$@"
