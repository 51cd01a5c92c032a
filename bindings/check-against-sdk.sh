#!/usr/bin/env bash
# Compare nvsci-sys, cudla-sys and cuda-sys with the headers of an installed SDK.
#
#   bindings/check-against-sdk.sh INCLUDE_DIR [options]
#
# INCLUDE_DIR holds nvscierror.h, nvscibuf.h, nvscisync.h, cudla.h and cuda.h (they may
# be spread over several directories: give the first here and the others with
# --cflags "-I DIR ..."). Options (see `--help`):
#   --only nvsci-sys,cudla-sys,cuda-sys   check only these crates
#   --cc COMPILER                          C compiler (default $CC, else cc)
#   --cflags "FLAGS"                       extra flags, e.g. more -I directories
#   --runner "CMD"                         run the probe through CMD (cross compilers)
#   --strict-versions                      differing version constants fail too
#   --selftest                             run the checker's own self-test instead
#
# Exit status: 0 no difference, 1 differences (each printed as "DIFF: ..."),
# 2 usage or tool error. Prerequisites: python3 (3.8+), a C compiler (gcc or clang)
# with its C library headers. See bindings/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ "${1:-}" = "--selftest" ]; then
    exec "$HERE/sdk-check/selftest.sh"
fi
exec python3 "$HERE/sdk-check/sdkcheck.py" "$@"
