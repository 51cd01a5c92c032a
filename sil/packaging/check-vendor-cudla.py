#!/usr/bin/env python3
"""Compares the exports of NVIDIA's libcudla.so.1 with the SIL's (sil/README.md, "Packaging").

Every function the vendor library exports under a name starting with `cudla` must be exported
by the SIL's staged libcudla.so.1 under the same version node (`name@@libcudla.so.1`), and the
SONAMEs must agree, unless sil/cudla/header-functions.txt lists the name as omitted (with its
reason) or the vendor headers of the same wheel do not declare it (a vendor-internal symbol,
reported but not required).

The vendor library comes from the PyPI wheel `nvidia-cudla` (aarch64; readelf reads it on any
host): `$VENDOR_CUDLA_DIR` may point at an unpacked wheel (the directory holding `nvidia/`),
else the wheel is fetched with `pip download` (version `$NVIDIA_CUDLA_VERSION`, default
13.5.25). Without network access the check is skipped with a message and exit status 0.

usage: sil/packaging/check-vendor-cudla.py [<staged SIL lib dir>]
(default: stage with sil/packaging/stage.sh and use its directory)
"""

import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = os.environ.get("NVIDIA_CUDLA_VERSION", "13.5.25")


def readelf(path, *flags):
    return subprocess.run(
        ["readelf", "-W", *flags, str(path)], check=True, capture_output=True, text=True
    ).stdout


def soname(path):
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", readelf(path, "-d"))
    return m.group(1) if m else None


def exports(path):
    """Defined dynamic symbols: name -> readelf's `name@@version` / `name@version` / `name`."""
    out = {}
    for line in readelf(path, "--dyn-syms").splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].rstrip(":").isdigit() or f[6] == "UND":
            continue
        # Num: Value Size Type Bind Vis Ndx Name
        if f[4] not in ("GLOBAL", "WEAK") or f[5] not in ("DEFAULT", "PROTECTED"):
            continue
        full = f[7]
        name = re.split(r"@@?", full, maxsplit=1)[0]
        out[name] = (full, f[3], f[6])
    return out


def header_omitted():
    """Names sil/cudla/header-functions.txt lists as omitted, with the reason."""
    path = ROOT / "sil/cudla/header-functions.txt"
    omitted = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            f = line.split("\t")
            if len(f) == 3 and f[1] == "omitted":
                omitted[f[0]] = f[2]
    return omitted


def vendor_dir():
    given = os.environ.get("VENDOR_CUDLA_DIR")
    if given:
        return Path(given)
    tmp = Path(tempfile.mkdtemp(prefix="vendor-cudla-"))
    r = subprocess.run(
        [sys.executable, "-m", "pip", "download", f"nvidia-cudla=={VERSION}",
         "--platform", "manylinux2014_aarch64", "--only-binary=:all:", "--no-deps",
         "-d", str(tmp), "-q"],
        capture_output=True, text=True,
    )
    wheels = list(tmp.glob("nvidia_cudla-*.whl"))
    if r.returncode != 0 or not wheels:
        msg = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no wheel"]
        print(f"SKIP: cannot download nvidia-cudla=={VERSION} (offline?): {msg[0]}")
        sys.exit(0)
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(tmp / "wheel")
    return tmp / "wheel"


def main():
    if len(sys.argv) > 1:
        sil_dir = Path(sys.argv[1])
    else:
        sil_dir = Path(subprocess.run([str(ROOT / "sil/packaging/stage.sh")], check=True,
                                      capture_output=True, text=True).stdout.strip())
    ours = sil_dir / "libcudla.so.1"
    base = vendor_dir()
    libs = list(base.glob("nvidia/*/lib/libcudla.so.1"))
    if not libs:
        print(f"FAIL: no nvidia/*/lib/libcudla.so.1 under {base}")
        return 1
    vendor = libs[0]
    headers = "".join(p.read_text(errors="replace") for p in vendor.parent.parent.glob("include/*"))
    omitted = header_omitted()

    problems = []
    v_so, o_so = soname(vendor), soname(ours)
    print(f"vendor: {vendor} (SONAME {v_so})")
    print(f"SIL:    {ours} (SONAME {o_so})")
    if v_so != o_so:
        problems.append(f"SONAME: vendor {v_so}, SIL {o_so}")
    v_exp, o_exp = exports(vendor), exports(ours)
    checked = 0
    for name, (full, _type, _ndx) in sorted(v_exp.items()):
        if not name.startswith("cudla"):
            continue
        checked += 1
        declared = re.search(r"\b" + re.escape(name) + r"\s*\(", headers) is not None
        mine = o_exp.get(name, (None,))[0]
        if mine == full:
            print(f"  ok        {full}")
        elif name in omitted:
            print(f"  omitted   {full}: {omitted[name]}")
        elif not declared:
            print(f"  internal  {full}: not declared by the wheel's headers, not required")
        else:
            problems.append(f"{full}: the SIL exports {mine or 'nothing'}")
    if checked == 0:
        problems.append("the vendor library exports nothing named cudla*: cannot compare")
    for p in problems:
        print(f"FAIL: {p}")
    if problems:
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
