#!/usr/bin/env bash
# RUSTC_WRAPPER for the loom models (scripts/loom.sh): every crate is built
# with RUSTFLAGS' `--cfg loom` (so cargo resolves the `cfg(loom)`
# dependencies and maitake-sync's wait list runs on loom's mutex) except
# cordyceps, which embassy-executor builds its run queue on in `const fn`s
# that cordyceps's loom mode makes non-const. Cordyceps then keeps its
# plain build: maitake's list is plain memory under maitake's (loom) lock,
# and the executor is never run by a model.
rustc=$1
[ -n "${LOOM_RUSTC_LOG:-}" ] && echo "$*" >>"$LOOM_RUSTC_LOG"
shift
case " $* " in
*" --crate-name cordyceps "*)
    args=()
    skip=0
    for a in "$@"; do
        if [ $skip = 1 ]; then
            skip=0
            [ "$a" = loom ] && continue
            args+=(--cfg "$a")
            continue
        fi
        if [ "$a" = --cfg ]; then skip=1; continue; fi
        args+=("$a")
    done
    exec "$rustc" "${args[@]}"
    ;;
esac
exec "$rustc" "$@"
