#!/usr/bin/env bash
# Build the Splash driver offline from upstream sources: the two archives of
# /work/shared/upstream (vendor.tar.xz: Splash and the crates.io packages of splash-protocol,
# splash-storage; vendor-workflow.tar.xz: what splash-workflow needs beyond them), or
# directories holding their extracted `vendor/<folder>/` layout.
#
#   drivers/splash/build-offline.sh ../shared/upstream/vendor.tar.xz ../shared/upstream/vendor-workflow.tar.xz
#
# Builds two binaries (debug profile, CARGO_INCREMENTAL=0) and prints their paths:
#   target/bin/rescind-splash-driver      number mode arbitrary_precision (profile splash-v5),
#                                         links splash-workflow (the host side); forwards
#                                         splash-v5-f64 requests to the other one
#   target/bin/rescind-splash-driver-f64  number mode f64 (profile splash-v5-f64), worker side
#                                         only: splash-workflow forces arbitrary_precision
#
# Nothing outside drivers/splash/target/ is written: the sources are extracted (or copied)
# there, CARGO_HOME and the target directories live there, and the crate is built with
# --offline and `[patch]` tables that point the git and crates.io names at the sources.
# The SOURCES themselves are only read.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 SOURCES... (vendor.tar.xz and vendor-workflow.tar.xz, or directories)" >&2
    exit 64
fi
HERE=$(cd "$(dirname "$0")" && pwd)
SCRATCH=$HERE/target/offline
mkdir -p "$SCRATCH"

# 1. The sources: every archive extracted once into one scratch dir (one vendor/ layout),
# every directory used as it is.
STAMP=""
DIRS=()
for SOURCES in "$@"; do
    if [ -f "$SOURCES" ]; then
        ARCHIVE=$(cd "$(dirname "$SOURCES")" && pwd)/$(basename "$SOURCES")
        STAMP="$STAMP $(stat -c '%s %Y' "$ARCHIVE") $ARCHIVE"
    elif [ -d "$SOURCES" ]; then
        DIRS+=("$(cd "$SOURCES" && pwd)")
    else
        echo "$0: $SOURCES is neither a directory nor a file" >&2
        exit 66
    fi
done
if [ -n "$STAMP" ]; then
    if [ ! -f "$SCRATCH/extracted.stamp" ] || [ "$(cat "$SCRATCH/extracted.stamp")" != "$STAMP" ]; then
        rm -rf "$SCRATCH/extracted"
        mkdir -p "$SCRATCH/extracted"
        for SOURCES in "$@"; do
            [ -f "$SOURCES" ] && tar -xJf "$SOURCES" -C "$SCRATCH/extracted"
        done
        echo "$STAMP" > "$SCRATCH/extracted.stamp"
    fi
    DIRS+=("$SCRATCH/extracted")
fi

# The directory that holds one folder per source (splash-<commit>, serde-<version>, ...);
# with several, folders are looked up in each.
VENDORS=()
SPLASH_SRC=""
for dir in "${DIRS[@]}"; do
    found=$(find "$dir" -maxdepth 3 -type d -name 'splash-*' -exec test -d '{}/crates' ';' -print -quit)
    if [ -n "$found" ]; then
        VENDORS+=("$(dirname "$found")")
        if [ -f "$found/crates/splash-protocol/Cargo.toml" ] && [ -z "$SPLASH_SRC" ]; then
            SPLASH_SRC=$found
        fi
    fi
done
if [ -z "$SPLASH_SRC" ]; then
    echo "$0: no splash-*/crates/splash-protocol under $*" >&2
    exit 66
fi

one() {  # the single folder matching a pattern in any vendor dir, or fail
    local vendor matches
    for vendor in "${VENDORS[@]}"; do
        matches=("$vendor"/$1)
        if [ -e "${matches[0]}" ]; then
            echo "${matches[-1]}"
            return
        fi
    done
    echo "$0: no source folder $1 in ${VENDORS[*]}" >&2
    exit 66
}
# Splash's own vendor/makepad tree (from vendor-workflow.tar.xz): in the folder that has it.
MAKEPAD=""
for vendor in "${VENDORS[@]}"; do
    for candidate in "$vendor"/splash-*/vendor/makepad; do
        [ -f "$candidate/platform/script/Cargo.toml" ] && MAKEPAD=$candidate
    done
done
if [ -z "$MAKEPAD" ]; then
    echo "$0: no splash-*/vendor/makepad (vendor-workflow.tar.xz) in ${VENDORS[*]}" >&2
    exit 66
fi

# 2. The Splash packages as a cargo "directory" source that stands in for the git repository
# (one folder per package: the crates the driver links, what they reach by path, and the
# makepad packages under Splash's vendor/makepad). Path dependencies of a package from a
# non-path source resolve by name in that same source, as they would in the git checkout.
# Each Splash manifest gets the values it inherits from Splash's workspace written in
# (edition, license, repository; the workspace lint table and the dev-dependencies, unused
# by a dependent, are dropped), and the vendor set's subtle 2.5.0 is accepted where
# splash-storage asks for 2.6.1 (it only uses ConstantTimeEq::ct_eq).
SPLASH_CRATES="splash-protocol splash-storage splash-workflow splash-capabilities splash-core splash-schema"
rm -rf "$SCRATCH/splash"
mkdir -p "$SCRATCH/splash"
grep -q '"2021"' "$SPLASH_SRC/Cargo.toml" || { echo "$0: Splash's workspace edition changed" >&2; exit 70; }
for crate in $SPLASH_CRATES; do
    cp -R "$SPLASH_SRC/crates/$crate" "$SCRATCH/splash/$crate"
    chmod -R u+w "$SCRATCH/splash/$crate"
    awk '
        /^\[/ { section = $0; skip = (section == "[lints]" || section == "[dev-dependencies]") }
        skip { next }
        /^edition\.workspace = true$/ { print "edition = \"2021\""; next }
        /^license\.workspace = true$/ { print "license = \"MIT\""; next }
        /^repository\.workspace = true$/ { print "repository = \"https://github.com/ymote/Splash\""; next }
        { print }
    ' "$SPLASH_SRC/crates/$crate/Cargo.toml" > "$SCRATCH/splash/$crate/Cargo.toml"
done
sed -i 's/^subtle = "2\.6\.1"$/subtle = "2.5"/' "$SCRATCH/splash/splash-storage/Cargo.toml"
grep -q '^subtle = "2.5"$' "$SCRATCH/splash/splash-storage/Cargo.toml" || {
    echo "$0: could not lower splash-storage's subtle requirement" >&2
    exit 70
}
if grep -q 'workspace' "$SCRATCH"/splash/*/Cargo.toml; then
    echo "$0: a Splash manifest still inherits from its workspace" >&2
    exit 70
fi
# makepad: every package of its workspace except the example and the fuzz crate.
while IFS= read -r manifest; do
    dir=$(dirname "$manifest")
    name=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$manifest" | head -n 1)
    case "$dir" in */example|*/fuzz) continue ;; esac
    cp -R "$dir" "$SCRATCH/splash/$name"
    chmod -R u+w "$SCRATCH/splash/$name"
    SPLASH_CRATES="$SPLASH_CRATES $name"
done < <(find "$MAKEPAD" -mindepth 2 -name Cargo.toml | sort)
for crate in $SPLASH_CRATES; do
    echo '{"files":{},"package":null}' > "$SCRATCH/splash/$crate/.cargo-checksum.json"
done

# 3. The cargo configuration: every dependency of the graph patched to a local path, and
# crates.io replaced by an empty directory source (nothing is ever fetched).
SPLASH_GIT=https://github.com/ymote/Splash
SPLASH_REV=$(sed -n 's/^splash-protocol = .*rev = "\([0-9a-f]*\)".*/\1/p' "$HERE/Cargo.toml")
mkdir -p "$SCRATCH/empty-registry"
CONFIG=$SCRATCH/patch-config.toml
{
    echo "[net]"
    echo "offline = true"
    echo
    echo "[source.crates-io]"
    echo "replace-with = \"empty-registry\""
    echo
    echo "[source.empty-registry]"
    echo "directory = \"$SCRATCH/empty-registry\""
    echo
    echo "[source.splash-git]"
    echo "git = \"$SPLASH_GIT\""
    echo "rev = \"$SPLASH_REV\""
    echo "replace-with = \"splash-sources\""
    echo
    echo "[source.splash-sources]"
    echo "directory = \"$SCRATCH/splash\""
    echo
    echo "[patch.crates-io]"
    patch() { echo "$1 = { path = \"$2\" }"; }
    patch arrayref "$(one 'arrayref-*')"
    patch arrayvec "$(one 'arrayvec-*')"
    patch base64 "$(one 'base64-*')"
    patch blake3 "$(one 'blake3-*')"
    patch cc "$(one 'cc-rs-*')"
    patch find-msvc-tools "$(one 'cc-rs-*')/find-msvc-tools"
    patch cfg-if "$(one 'cfg-if-*')"
    patch constant_time_eq "$(one 'constant_time_eq-*')"
    patch itoa "$(one 'itoa-*')"
    patch libc "$(one 'libc-*')"
    patch memchr "$(one 'memchr-*')"
    patch proc-macro2 "$(one 'proc-macro2-*')"
    patch quote "$(one 'quote-*')"
    patch cpufeatures "$(one 'rustcrypto-cpufeatures-*')/cpufeatures"
    patch zeroize "$(one 'rustcrypto-zeroize-*')/zeroize"
    patch serde "$(one 'serde-1*')/serde"
    patch serde_core "$(one 'serde-1*')/serde_core"
    patch serde_derive "$(one 'serde-1*')/serde_derive"
    patch serde_json "$(one 'serde_json-*')"
    patch shlex "$(one 'shlex-*')"
    patch subtle "$(one 'subtle-*')"
    patch syn "$(one 'syn-*')"
    patch unicode-ident "$(one 'unicode-ident-*')"
    patch zmij "$(one 'zmij-*')"
    patch getrandom "$(one 'getrandom-*')"
    patch wasm-bindgen "$(one 'wasm-bindgen-*')"
    patch js-sys "$(one 'wasm-bindgen-*')/crates/js-sys"
    patch once_cell "$(one 'once_cell-*')"
    patch rustversion "$(one 'rustversion-*')"
    patch bumpalo "$(one 'bumpalo-*')"
    patch r-efi "$(one 'r-efi-*')"
    patch wasip2 "$(one 'wasi-rs-wasip2-*')/crates/wasip2"
    patch wit-bindgen "$(one 'wit-bindgen-*')/crates/guest-rust"
} > "$CONFIG"

# 4. Our crate, copied so that the lock file of this offline graph stays in the scratch dir.
rm -rf "$SCRATCH/crate"
mkdir -p "$SCRATCH/crate"
cp -R "$HERE/Cargo.toml" "$HERE/src" "$SCRATCH/crate/"

# A git source replaced by a directory needs its revision pinned in a lock file: a seed lock
# names every package of the directory source at the commit; cargo resolves the rest.
{
    echo "version = 4"
    for crate in $SPLASH_CRATES; do
        echo
        echo "[[package]]"
        echo "name = \"$crate\""
        echo "version = \"$(sed -n 's/^version = "\(.*\)"$/\1/p' "$SCRATCH/splash/$crate/Cargo.toml" | head -n 1)\""
        echo "source = \"git+$SPLASH_GIT?rev=$SPLASH_REV#$SPLASH_REV\""
    done
} > "$SCRATCH/crate/Cargo.lock"

export CARGO_HOME=$SCRATCH/cargo-home
export CARGO_NET_OFFLINE=true
export CARGO_INCREMENTAL=0
mkdir -p "$CARGO_HOME" "$HERE/target/bin"
# One target directory for both builds: the dependencies they share (syn, serde_derive,
# blake3, ...) compile once; each binary is copied out before the next build relinks it.
build() {  # cargo flags
    cargo build --offline --config "$CONFIG" \
        --manifest-path "$SCRATCH/crate/Cargo.toml" \
        --target-dir "$SCRATCH/target" "$@" >&2
}
build
cp "$SCRATCH/target/debug/rescind-splash-driver" "$HERE/target/bin/rescind-splash-driver"
build --no-default-features
cp "$SCRATCH/target/debug/rescind-splash-driver" "$HERE/target/bin/rescind-splash-driver-f64"
echo "$HERE/target/bin/rescind-splash-driver"
echo "$HERE/target/bin/rescind-splash-driver-f64"
