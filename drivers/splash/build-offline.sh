#!/usr/bin/env bash
# Build the Splash driver offline from a directory of upstream sources, or from the
# vendor.tar.xz that holds them (see /work/shared/upstream/sources.txt for the list).
#
#   drivers/splash/build-offline.sh ../shared/upstream/vendor.tar.xz
#
# Builds two binaries and prints their paths:
#   target/bin/rescind-splash-driver      number mode arbitrary_precision (profile splash-v5;
#                                         forwards splash-v5-f64 requests to the other one)
#   target/bin/rescind-splash-driver-f64  number mode f64 (profile splash-v5-f64)
#
# Nothing outside drivers/splash/target/ is written: the sources are extracted (or copied)
# there, CARGO_HOME and the target directories live there, and the crate is built with
# --offline and `[patch]` tables that point the git and crates.io names at the sources.
# The SOURCES directory itself is only read.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 SOURCES (a directory of upstream sources or vendor.tar.xz)" >&2
    exit 64
fi
SOURCES=$1
HERE=$(cd "$(dirname "$0")" && pwd)
SCRATCH=$HERE/target/offline
mkdir -p "$SCRATCH"

# 1. The sources: a directory as it is, or the archive extracted once into the scratch dir.
if [ -f "$SOURCES" ]; then
    ARCHIVE=$(cd "$(dirname "$SOURCES")" && pwd)/$(basename "$SOURCES")
    STAMP=$(stat -c '%s %Y' "$ARCHIVE")
    if [ ! -f "$SCRATCH/extracted.stamp" ] || [ "$(cat "$SCRATCH/extracted.stamp")" != "$STAMP $ARCHIVE" ]; then
        rm -rf "$SCRATCH/extracted"
        mkdir -p "$SCRATCH/extracted"
        tar -xJf "$ARCHIVE" -C "$SCRATCH/extracted"
        echo "$STAMP $ARCHIVE" > "$SCRATCH/extracted.stamp"
    fi
    SOURCES=$SCRATCH/extracted
elif [ ! -d "$SOURCES" ]; then
    echo "$0: $SOURCES is neither a directory nor a file" >&2
    exit 66
fi
SOURCES=$(cd "$SOURCES" && pwd)

# The directory that holds one folder per source (splash-<commit>, serde-<version>, ...).
VENDOR=$(find "$SOURCES" -maxdepth 3 -type d -name 'splash-*' -exec test -f '{}/crates/splash-protocol/Cargo.toml' ';' -print -quit)
if [ -z "$VENDOR" ]; then
    echo "$0: no splash-*/crates/splash-protocol under $SOURCES" >&2
    exit 66
fi
SPLASH_SRC=$VENDOR
VENDOR=$(dirname "$VENDOR")

one() {  # the single folder matching a pattern, or fail
    local matches=("$VENDOR"/$1)
    if [ ! -e "${matches[0]}" ]; then
        echo "$0: no source folder $1 in $VENDOR" >&2
        exit 66
    fi
    echo "${matches[-1]}"
}

# 2. A temporary copy of the two Splash crates, laid out as a cargo "directory" source that
# stands in for the git repository: each manifest gets the values it inherits from Splash's
# workspace written in (edition, license, repository; the workspace lint table and the
# dev-dependencies, unused by a dependent, are dropped), and the vendor set's subtle 2.5.0
# is accepted where splash-storage asks for 2.6.1 (it only uses ConstantTimeEq::ct_eq).
rm -rf "$SCRATCH/splash"
mkdir -p "$SCRATCH/splash"
for crate in splash-protocol splash-storage; do
    cp -R "$SPLASH_SRC/crates/$crate" "$SCRATCH/splash/$crate"
    chmod -R u+w "$SCRATCH/splash/$crate"
    manifest=$SCRATCH/splash/$crate/Cargo.toml
    awk '
        /^\[/ { section = $0; skip = (section == "[lints]" || section == "[dev-dependencies]") }
        skip { next }
        /^edition\.workspace = true$/ { print "edition = \"2021\""; next }
        /^license\.workspace = true$/ { print "license = \"MIT\""; next }
        /^repository\.workspace = true$/ { print "repository = \"https://github.com/ymote/Splash\""; next }
        { print }
    ' "$SPLASH_SRC/crates/$crate/Cargo.toml" > "$manifest"
    echo '{"files":{},"package":null}' > "$SCRATCH/splash/$crate/.cargo-checksum.json"
done
grep -q '^edition = "2021"$' "$SCRATCH/splash/splash-protocol/Cargo.toml"
grep -q '"2021"' "$SPLASH_SRC/Cargo.toml" || { echo "$0: Splash's workspace edition changed" >&2; exit 70; }
sed -i 's/^subtle = "2\.6\.1"$/subtle = "2.5"/' "$SCRATCH/splash/splash-storage/Cargo.toml"
grep -q '^subtle = "2.5"$' "$SCRATCH/splash/splash-storage/Cargo.toml" || {
    echo "$0: could not lower splash-storage's subtle requirement" >&2
    exit 70
}
if grep -q 'workspace' "$SCRATCH"/splash/*/Cargo.toml; then
    echo "$0: a Splash manifest still inherits from its workspace" >&2
    exit 70
fi

# 3. The cargo configuration: every dependency of the graph patched to a local path.
SPLASH_GIT=https://github.com/ymote/Splash
SPLASH_REV=$(sed -n 's/^splash-protocol = .*rev = "\([0-9a-f]*\)".*/\1/p' "$HERE/Cargo.toml")
CONFIG=$SCRATCH/patch-config.toml
{
    echo "[net]"
    echo "offline = true"
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
} > "$CONFIG"

# 4. Our crate, copied so that the lock file of this offline graph stays in the scratch dir.
rm -rf "$SCRATCH/crate"
mkdir -p "$SCRATCH/crate"
cp -R "$HERE/Cargo.toml" "$HERE/src" "$SCRATCH/crate/"

# A git source replaced by a directory needs its revision pinned in a lock file: a seed lock
# names the two Splash packages at the commit; cargo resolves the rest from the patches.
{
    echo "version = 4"
    for crate in splash-protocol splash-storage; do
        echo
        echo "[[package]]"
        echo "name = \"$crate\""
        echo "version = \"$(sed -n 's/^version = "\(.*\)"$/\1/p' "$SCRATCH/splash/$crate/Cargo.toml" | head -n 1)\""
        echo "source = \"git+$SPLASH_GIT?rev=$SPLASH_REV#$SPLASH_REV\""
    done
} > "$SCRATCH/crate/Cargo.lock"

export CARGO_HOME=$SCRATCH/cargo-home
export CARGO_NET_OFFLINE=true
mkdir -p "$CARGO_HOME" "$HERE/target/bin"
build() {  # $1: target dir name, rest: cargo flags
    local dir=$1
    shift
    cargo build --release --offline --config "$CONFIG" \
        --manifest-path "$SCRATCH/crate/Cargo.toml" \
        --target-dir "$SCRATCH/$dir" "$@" >&2
}
build target-ap
build target-f64 --no-default-features
cp "$SCRATCH/target-ap/release/rescind-splash-driver" "$HERE/target/bin/rescind-splash-driver"
cp "$SCRATCH/target-f64/release/rescind-splash-driver" "$HERE/target/bin/rescind-splash-driver-f64"
echo "$HERE/target/bin/rescind-splash-driver"
echo "$HERE/target/bin/rescind-splash-driver-f64"
