#!/usr/bin/env bash
# The module import graph of the runtime crate, read from its `crate::` paths
# (in `use` lines and inline), and every import circle in it. A submodule
# (controller/drive.rs) counts as its top-level module (controller); a name
# re-exported at the crate root (`crate::TaskNode`) counts as the module
# lib.rs takes it from. Comments are ignored. Exit 1 if there is a circle.
# Then the files inside `supervisor/` and `node/`: a sibling file calling a
# fn defined in another sibling (a name defined in exactly one file of the
# directory, std method names aside) is an edge; two siblings calling into
# each other both ways fail the check (the parent file, which declares
# them, may call and be called by all).
#   scripts/module-deps.sh          circles only
#   scripts/module-deps.sh --edges  also every edge, "from -> to"
set -euo pipefail
cd "$(dirname "$0")/../supervisor/src"
status=0
# Methods of std and core types a sibling's fn may share a name with.
# A heuristic (names, not types): a name here is never counted as an edge.
COMMON='^(new|load|store|take|set|get|eq|has|add|join|poll|drop|fmt|from|into|next|wake|clone|default|len|is_empty|iter|map|swap|with)$'
sibling_edges() { # dir -> "from to name" per edge between its files
    local dir=$1 f g name
    for f in $(find "$dir" -name '*.rs' | sort); do
        sed 's,//.*,,' "$f" | grep -oE '^ *(pub(\([a-z]+\))? )?(const )?(async )?fn [a-z_][a-z0-9_]*' |
            sed -E 's/.* fn //; s/^fn //' | sort -u | sed "s|^|$f |"
    done | awk -v common="$COMMON" '{ n[$2]++; at[$2] = $1 }
        END { for (k in n) if (n[k] == 1 && k !~ common) print at[k], k }' | sort |
        while read -r def name; do
            for g in $(find "$dir" -name '*.rs' | sort); do
                [[ $g == "$def" ]] && continue
                # No `grep -q`: its early exit would fail the pipeline (pipefail).
                if sed 's,//.*,,' "$g" | grep -E "(\.|::|[^a-z0-9_])$name *(::<[^>]*>)?\(" >/dev/null; then
                    echo "$g $def $name"
                fi
            done
        done
}
for dir in supervisor node; do
    edges=$(sibling_edges "$dir" | sort -u)
    [[ ${1:-} == --edges && -n $edges ]] && printf '%s\n' "$edges" | awk '{ print $1 " -> " $2 " (" $3 ")" }'
    both=$(printf '%s\n' "$edges" | awk 'NF { e[$1 " " $2] = 1 } END { for (k in e) { split(k, p, " "); if ((p[2] " " p[1]) in e && p[1] < p[2]) print p[1] " <-> " p[2] } }')
    if [[ -n $both ]]; then
        printf 'sibling files calling each other: %s\n' "$both"
        status=1
    else
        echo "no two files of $dir/ call each other"
    fi
done
for f in $(find . -name '*.rs' ! -name lib.rs | sort); do
    m=${f#./}; m=${m%%/*}; m=${m%.rs}
    # Strip comments, join lines, split `crate::{A, b::C}` lists into paths.
    sed 's,//.*,,' "$f" | tr '\n' ' ' |
        grep -oE 'crate::(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*)' |
        sed -E 's/^crate::\{?//; s/\}$//' | tr ',' '\n' |
        sed -E 's/^ *//; s/[: ].*//' | grep -v '^$' | sed "s/^/$m /" || true
done | awk -v show="${1:-}" '
    BEGIN {
        # Crate-root re-exports: `pub use MOD::{A, B};` / `pub use MOD::A;`.
        while ((getline line < "lib.rs") > 0) lib = lib " " line
        while (match(lib, /pub use [a-z_]+::(\{[^}]*\}|[A-Za-z_0-9]+)/)) {
            s = substr(lib, RSTART + 8, RLENGTH - 8); lib = substr(lib, RSTART + RLENGTH)
            mod = s; sub(/::.*/, "", mod); sub(/^[a-z_]+::\{?/, "", s); sub(/\}$/, "", s)
            n = split(s, names, /[ ,]+/)
            for (i = 1; i <= n; i++) if (names[i] != "") owner[names[i]] = mod
        }
    }
    {
        from = $1; to = ($2 in owner) ? owner[$2] : $2
        if (to == from || to == "__private") next
        if (!((from, to) in edge)) { edge[from, to] = 1; mods[from] = 1; mods[to] = 1 }
    }
    END {
        if (show == "--edges") for (k in edge) { split(k, p, SUBSEP); print p[1] " -> " p[2] | "sort" }
        close("sort")
        # Reachability (Floyd-Warshall); a module that reaches itself is on a circle.
        for (a in mods) for (b in mods) reach[a, b] = ((a, b) in edge)
        for (k in mods) for (a in mods) if (reach[a, k]) for (b in mods) if (reach[k, b]) reach[a, b] = 1
        for (a in mods) if (reach[a, a]) {
            line = ""
            for (b in mods) if (b != a && reach[a, b] && reach[b, a]) line = line " " b
            printf "circle: %s <->%s\n", a, line | "sort"; bad = 1
        }
        close("sort")
        if (!bad) print "no import circles"
        exit bad
    }' || status=1
exit $status
