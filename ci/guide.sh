#!/usr/bin/env bash
# Runs docs/guide.md: every ```sh block, in order, in one shell, as a user would type them, in
# a fresh directory outside this repository. ```console blocks are shown, not run (they need a
# GPU machine or an Orin; their builds are `sh` blocks and run here).
#
#   ci/guide.sh [WORKDIR]     (default: a new temporary directory; kept on failure)
#
# The guide expects ORIN_EXEC (this checkout). CARGO_TARGET_DIR is unset, as on a user's
# machine: the orin-exec CLI builds into the checkout's target/ (CI's build is reused), the
# project into its own target/. One target directory shared by the workspace and an outside
# project mixes artifacts of the same path crates built with different profiles, and rustc
# then refuses them as "multiple different versions" of one crate.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/orin-exec-guide.XXXXXX)}"
mkdir -p "$work"
script="$work/guide-commands.sh"
{
    echo "set -euxo pipefail"
    echo "unset CARGO_TARGET_DIR"
    echo "export ORIN_EXEC='$repo'"
    echo "cd '$work'"
    awk '/^```sh$/ { inside = 1; next } /^```/ { inside = 0; next } inside { print }' "$repo/docs/guide.md"
} >"$script"
blocks=$(grep -c '^```sh$' "$repo/docs/guide.md")
echo "docs/guide.md: $blocks sh blocks -> $script (in $work)"
if bash "$script"; then
    echo "docs/guide.md: every command ran"
    [ $# -ge 1 ] || rm -rf "$work"
else
    echo "docs/guide.md: a command failed; the directory is kept: $work" >&2
    exit 1
fi
