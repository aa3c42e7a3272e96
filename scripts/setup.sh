#!/usr/bin/env bash
# Prerequisites of `scripts/test.sh`: check them all first, say what is
# missing, then install it (rustup for Rust pieces, apt-get for Debian
# packages, with sudo when not root). Checking before building means a fresh
# machine fails (or is fixed) in seconds, not after minutes of compiling.
#
#   bash scripts/setup.sh           check, then install what is missing
#   bash scripts/setup.sh --check   check only; exit 1 if something is missing
#
# Other scripts `source` this file and call `setup_prerequisites [--check]`.
# To add a prerequisite, append to the lists below (or, from a sourcing
# script, to the arrays before calling `setup_prerequisites`).

# The library's declared MSRV, read from the workspace manifest and turned
# into a rustup toolchain name (1.85 -> 1.85.0).
setup_msrv_toolchain() {
    local root msrv
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$root/Cargo.toml")
    case "$msrv" in *.*.*) ;; *) msrv="$msrv.0" ;; esac
    printf '%s\n' "$msrv"
}

# Rustup targets of the default toolchain: three library builds plus the
# firmware boards (an505 = thumbv8m.main, an385 = thumbv7m, micro:bit = thumbv6m).
SETUP_RUST_TARGETS=(thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf thumbv8m.main-none-eabi)
SETUP_RUST_COMPONENTS=(rustfmt clippy)

# Debian packages, as "package:command-that-proves-it-is-there".
SETUP_APT_PACKAGES=(
    "qemu-system-arm:qemu-system-arm"    # runs the firmware suite
    "binutils-arm-none-eabi:arm-none-eabi-size" # footprint figures of the firmware
)

# ---- EXTRA PREREQUISITES -------------------------------------------------
# Steps that need more append here, in the same "package:command" form, e.g.
#   "chromium:chromium" "chromium-driver:chromedriver" "curl:curl"
# examples/device/ci.sh (see its PREREQS): the dashboard test drives Debian's
# chromium through chromedriver; the HTTP scenarios use curl.
SETUP_EXTRA_APT_PACKAGES=("chromium:chromium" "chromium-driver:chromedriver" "curl:curl")
# Python packages, as "pip-name:import-name"; installed with
# `python3 -m pip install` (the `python3-pip` Debian package is added when
# this list is not empty).
SETUP_EXTRA_PIP_PACKAGES=("selenium:selenium")
# ---------------------------------------------------------------------------

setup_prerequisites() {
    local check_only=0
    [ "${1:-}" = "--check" ] && check_only=1

    if ! command -v rustup >/dev/null 2>&1; then
        echo "setup: rustup is required (https://rustup.rs); install it and run again" >&2
        return 1
    fi

    local msrv installed_targets installed_components toolchains
    msrv=$(setup_msrv_toolchain)
    installed_targets=$(rustup target list --installed)
    installed_components=$(rustup component list --installed)
    toolchains=$(rustup toolchain list)

    local missing_targets=() missing_components=() missing_toolchain="" missing_apt=() missing_pip=()
    local t c entry pkg cmd
    for t in "${SETUP_RUST_TARGETS[@]}"; do
        grep -qx "$t" <<<"$installed_targets" || missing_targets+=("$t")
    done
    for c in "${SETUP_RUST_COMPONENTS[@]}"; do
        grep -q "^$c-" <<<"$installed_components" || missing_components+=("$c")
    done
    grep -q "^$msrv-" <<<"$toolchains" || missing_toolchain="$msrv"
    for entry in "${SETUP_APT_PACKAGES[@]}" "${SETUP_EXTRA_APT_PACKAGES[@]}"; do
        pkg=${entry%%:*} cmd=${entry#*:}
        command -v "$cmd" >/dev/null 2>&1 || missing_apt+=("$pkg")
    done
    if ((${#SETUP_EXTRA_PIP_PACKAGES[@]})); then
        for entry in "${SETUP_EXTRA_PIP_PACKAGES[@]}"; do
            pkg=${entry%%:*} cmd=${entry#*:}
            python3 -c "import $cmd" >/dev/null 2>&1 || missing_pip+=("$pkg")
        done
        if ((${#missing_pip[@]})) && ! python3 -m pip --version >/dev/null 2>&1; then
            missing_apt+=(python3-pip)
        fi
    fi

    if ! ((${#missing_targets[@]} + ${#missing_components[@]} + ${#missing_apt[@]} + ${#missing_pip[@]})) \
        && [ -z "$missing_toolchain" ]; then
        echo "setup: every prerequisite is installed"
        return 0
    fi

    echo "setup: missing prerequisites:"
    ((${#missing_targets[@]})) && echo "  rustup targets:     ${missing_targets[*]}"
    ((${#missing_components[@]})) && echo "  rustup components:  ${missing_components[*]}"
    [ -n "$missing_toolchain" ] && echo "  MSRV toolchain:     $missing_toolchain (from rust-version in Cargo.toml)"
    ((${#missing_apt[@]})) && echo "  Debian packages:    ${missing_apt[*]}"
    ((${#missing_pip[@]})) && echo "  Python packages:    ${missing_pip[*]}"
    if ((check_only)); then
        echo "setup: run \`bash scripts/setup.sh\` to install them" >&2
        return 1
    fi

    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    if ((${#missing_apt[@]})); then
        if ! command -v apt-get >/dev/null 2>&1; then
            echo "setup: no apt-get here; install these with your package manager: ${missing_apt[*]}" >&2
            return 1
        fi
        echo "setup: installing Debian packages: ${missing_apt[*]}${sudo:+ (with sudo)}"
        # Wait for a concurrent apt/dpkg run instead of failing on its lock.
        local wait_lock=(-o DPkg::Lock::Timeout=600)
        $sudo apt-get "${wait_lock[@]}" update -q
        $sudo apt-get "${wait_lock[@]}" install -y -q --no-install-recommends "${missing_apt[@]}"
    fi
    if ((${#missing_pip[@]})); then
        echo "setup: installing Python packages: ${missing_pip[*]}"
        python3 -m pip install --quiet "${missing_pip[@]}" ||
            python3 -m pip install --quiet --break-system-packages "${missing_pip[@]}"
    fi
    if ((${#missing_targets[@]})); then
        echo "setup: installing rustup targets: ${missing_targets[*]}"
        rustup target add "${missing_targets[@]}"
    fi
    if ((${#missing_components[@]})); then
        echo "setup: installing rustup components: ${missing_components[*]}"
        rustup component add "${missing_components[@]}"
    fi
    if [ -n "$missing_toolchain" ]; then
        echo "setup: installing the MSRV toolchain $missing_toolchain"
        rustup toolchain install "$missing_toolchain" --profile minimal
    fi
    echo "setup: done"
}

# Run directly (not sourced): set up now.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    setup_prerequisites "$@"
fi
