#!/usr/bin/env bash
# How far the AEB demo links for QNX 7.1 (aarch64-unknown-nto-qnx710) without the QNX SDP
# (docs/qnx.md, "How far it gets without the SDP"). A stand-in for `qcc` links every object
# of the program into one relocatable object (`ld.lld -r`): it fails if any Rust code does not
# compile or any object is missing; what it leaves undefined is what the SDP's libraries
# (libc, libm, libsocket, libgcc_s) and NVIDIA's DRIVE OS QNX libraries must provide. Prints
# the undefined symbols by provider.
set -euo pipefail
cd "$(dirname "$0")/.."
lld=$(rustc +nightly --print sysroot)/lib/rustlib/$(rustc +nightly -vV | sed -n 's/^host: //p')/bin/rust-lld
[ -x "$lld" ] || { echo "rust-lld not found at $lld"; exit 1; }
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat >"$fake/qcc" <<SCRIPT
#!/bin/sh
out=; objs=
while [ \$# -gt 0 ]; do
  case "\$1" in
    -o) out=\$2; shift ;;
    -L) shift ;;
    *.o|*.rlib|*.a) objs="\$objs \$1" ;;
  esac
  shift
done
exec "$lld" -flavor gnu -r -o "\$out" \$objs
SCRIPT
chmod +x "$fake/qcc"
PATH="$fake:$PATH" cargo +nightly build -q -Zbuild-std=std,panic_abort \
    --target aarch64-unknown-nto-qnx710 -p aeb-demo --no-default-features --features orin
obj=${CARGO_TARGET_DIR:-target}/aarch64-unknown-nto-qnx710/debug/aeb
undefined=$(llvm-nm -u "$obj" | awk '{print $NF}' | sort -u)
vendor=$(grep -E '^(NvSci|cu[A-Z]|cudla|Cupva)' <<<"$undefined" || true)
echo "one relocatable object: $(file -b "$obj" | cut -d, -f1-2)"
echo "undefined: $(wc -l <<<"$undefined") symbols"
echo "  NVIDIA (libnvscisync, libnvscibuf, libcuda, libcudla, libcupva_host): $(wc -l <<<"$vendor")"
echo "  QNX SDP (libc, libm, libsocket, libgcc_s): $(grep -cvE '^(NvSci|cu[A-Z]|cudla|Cupva)' <<<"$undefined")"
echo "  of which the OS calls of src/engine/os.rs:" \
    $(grep -xE 'ThreadCtl_r|clock_gettime|clock_nanosleep|mlockall|pthread_(get|set)schedparam' <<<"$undefined")
