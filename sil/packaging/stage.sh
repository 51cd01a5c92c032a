#!/usr/bin/env bash
# Builds the SIL shared libraries and stages them as the vendor ships them, in one directory
# a C user links against and runs with:
#
#   libcudla.so.1      libcudla.so     -> libcudla.so.1
#   libnvscisync.so.1  libnvscisync.so -> libnvscisync.so.1
#   libnvscibuf.so.1   libnvscibuf.so  -> libnvscibuf.so.1
#   libcuda.so.1       libcuda.so      -> libcuda.so.1       (SIL CUDA, built as libsil_cuda.so)
#   libcupva_host.so.2.10  libcupva_host.so -> libcupva_host.so.2.10   (SIL cuPVA)
#
#   cc app.c -L "$dir" -lcudla -lnvscisync -lnvscibuf     # links by SONAME, no rpath
#   cc app.c -L "$dir" -lcuda -lnvscisync -lnvscibuf      # a CUDA driver API program
#   cc app.c -L "$dir" -lcupva_host -lnvscisync -lnvscibuf   # a cuPVA program
#   LD_LIBRARY_PATH="$dir" ./a.out
#
# usage: sil/packaging/stage.sh [cargo build options, e.g. --release]
# The directory is $SIL_LIB_DIR, else <target dir>/sil-lib (<target dir> is
# $CARGO_TARGET_DIR, else target/ of the repository). It prints the directory.
# SONAMEs and symbol versions come from the crates' build.rs (sil/README.md, "Packaging").
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
profile=debug
prev=""
for arg in "$@"; do
    case "$arg" in
        --release) profile=release ;;
        --profile=*) profile="${arg#--profile=}" ;;
    esac
    if [ "$prev" = "--profile" ]; then profile="$arg"; fi
    prev="$arg"
done
[ "$profile" = dev ] && profile=debug
dest="${SIL_LIB_DIR:-$target/sil-lib}"

(cd "$root" && cargo build -q -p sil-nvscisync -p sil-nvscibuf -p sil-cudla -p sil-cuda -p sil-cupva "$@")

mkdir -p "$dest"
# built:stem:soname version
for entry in cudla:cudla:1 nvscisync:nvscisync:1 nvscibuf:nvscibuf:1 sil_cuda:cuda:1 \
    cupva_host:cupva_host:2.10; do
    IFS=: read -r built stem ver <<<"$entry"
    src="$target/$profile/lib$built.so"
    [ -f "$src" ] || { echo "stage.sh: $src was not built" >&2; exit 1; }
    cp "$src" "$dest/lib$stem.so.$ver.tmp$$"
    mv -f "$dest/lib$stem.so.$ver.tmp$$" "$dest/lib$stem.so.$ver"
    ln -sfn "lib$stem.so.$ver" "$dest/lib$stem.so"
done
echo "$dest"
