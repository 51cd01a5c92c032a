# Records which vendor entry points a SIL program enters, and from where (a gdb script).
#
#   ORIN_IMPORTS_SYMBOLS=symbols.txt ORIN_IMPORTS_HITS=hits.txt \
#   ORIN_IMPORTS_SHIPPED=orin_exec,aeb,hil_tests \
#   gdb -nx -batch -x tools/orin-imports/record.py --args PROGRAM ARGS...
#
# One breakpoint per symbol of symbols.txt (the SIL definitions: on `sil` the SIL rlibs define
# the same C symbols the -sys crates declare, and the runtime calls them through the same
# code as on `orin`). Each hit appends `symbol<TAB>caller` to hits.txt, where the caller is the
# first function above the entry point outside the -sys crates and the standard library; the
# breakpoint never stops the program, and is deleted once a caller of a shipped crate
# (ORIN_IMPORTS_SHIPPED) was seen, so a hot call costs one trap, not one per call. gdb exits
# with the program's exit status (128 + signal when it was killed), so a failing test fails the
# recording too. `orin-imports coverage` reads hits.txt; see docs/orin-imports.md.
import os

import gdb

# Frames skipped on the way up: the -sys crates (a safe wrapper is not the caller) and the
# standard library (a call site inside an inlined `core` function is reported as that frame).
SKIPPED = ("cuda_sys::", "cudla_sys::", "nvsci_sys::", "cupva_sys::", "core::", "alloc::", "std::")
shipped = tuple(c + "::" for c in os.environ["ORIN_IMPORTS_SHIPPED"].split(","))
with open(os.environ["ORIN_IMPORTS_SYMBOLS"]) as f:
    symbols = [line.strip() for line in f if line.strip()]
hits = open(os.environ["ORIN_IMPORTS_HITS"], "a", buffering=1)
seen = set()


def caller_of(symbol):
    # The breakpoint can sit in a function inlined into the entry point (its first
    # statement): go up to the entry point's own frame first. The inlined chain can be deep
    # (the SIL cuPVA's version calls: a closure, two sil_common helpers, two `core` ones).
    f = gdb.newest_frame()
    g, depth = f, 0
    while g is not None and depth < 32:
        name = g.name() or ""
        if name == symbol or name.endswith("::" + symbol):
            f = g
            break
        g, depth = g.older(), depth + 1
    f = f.older()
    while f is not None:
        name = f.name()
        if name and not name.lstrip("<&*").startswith(SKIPPED):
            return name
        f = f.older()
    return "?"


class Entry(gdb.Breakpoint):
    def __init__(self, symbol):
        super().__init__(symbol, internal=True)
        self.symbol = symbol
        self.done = False

    def stop(self):
        if self.done:
            return False
        caller = caller_of(self.symbol)
        if (self.symbol, caller) not in seen:
            seen.add((self.symbol, caller))
            hits.write("%s\t%s\n" % (self.symbol, caller))
        if caller.lstrip("<&*").startswith(shipped) and "::tests::" not in caller:
            self.done = True
            gdb.post_event(self.delete)
        return False


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set print thread-events off")
gdb.execute("set breakpoint pending off")
gdb.execute("handle all nostop noprint pass")
absent = []
for s in symbols:
    try:
        Entry(s)
    except gdb.error:
        # Not in this program: the SIL build never links it (nothing calls it here).
        absent.append(s)
if absent:
    print("record.py: not in this program: %s" % " ".join(absent))
gdb.execute("run")
code = gdb.convenience_variable("_exitcode")
if code is None:
    sig = gdb.convenience_variable("_exitsignal")
    code = 128 + int(sig) if sig is not None else 1
hits.close()
gdb.execute("quit %d" % int(code))
