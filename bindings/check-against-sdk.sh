#!/usr/bin/env bash
# Compare nvsci-sys, cudla-sys, cupva-sys and cuda-sys with the headers of an installed SDK.
#
#   bindings/check-against-sdk.sh INCLUDE_DIR [options]
#
# INCLUDE_DIR holds nvscierror.h, nvscibuf.h, nvscisync.h, cudla.h, cuda.h and cupva_host.h (they may
# be spread over several directories: give the first here and the others with
# --cflags "-I DIR ..."). Two stages run, each printing every difference as "DIFF: ...":
#   1. C probes: a C program compiled against the headers checks values, sizes,
#      offsets and C type compatibility;
#   2. bindgen: bindgen (bindgen-cli, pinned; installed into target/sdk-check with
#      `cargo install` if it is not on PATH) generates bindings from the headers, and
#      sdk-check/sdkcmp (syn) compares names, values, types and layouts with ours.
# Options (see `--help`):
#   --only nvsci-sys,cudla-sys,cupva-sys,cuda-sys   check only these crates
#   --no-bindgen | --bindgen-only          run only one stage
#   --cc COMPILER                          C compiler (default $CC, else cc)
#   --cflags "FLAGS"                       extra flags, e.g. more -I directories
#   --clang-args "FLAGS"                   extra flags for bindgen's clang only
#   --runner "CMD"                         run the probe through CMD (cross compilers)
#   --strict-versions                      differing version constants fail too
#   --bindgen-out DIR                      keep bindgen's output
#   --selftest                             run the checker's own self-test instead
#
# Exit status: 0 no difference, 1 differences, 2 usage or tool error. Prerequisites:
# python3 (3.8+), a C compiler (gcc or clang) with its C library headers; for the
# bindgen stage also libclang (libclang-dev, clang) and cargo. See bindings/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ "${1:-}" = "--selftest" ]; then
    exec "$HERE/sdk-check/selftest.sh"
fi
exec python3 "$HERE/sdk-check/sdkcheck.py" "$@"
