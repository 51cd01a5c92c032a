/*
 * hostile.h: one hostile-argument case per exported entry point. A client defines each case
 * as
 *
 *     HOSTILE(NvSciSyncObjSignal) { EXPECT_SCI(NvSciSyncObjSignal(NULL), ...); }
 *
 * which registers it (a constructor, so there is no second list to keep) under the entry
 * point's name; hostile_run_all() runs every registered case in name order and prints
 * `hostile case <name>` after each one that came back (the process survived it). The test
 * (tests/hostile.rs) reads the HOSTILE(...) markers of the file as the list of what is
 * called and requires it to equal the library's exported functions.
 */
#ifndef SIL_CLIENT_HOSTILE_H
#define SIL_CLIENT_HOSTILE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Room for every export of the largest library (sil-cuda); more is a FAIL, not an overflow. */
#define HOSTILE_MAX_CASES 128

struct hostile_case {
    const char* name;
    void (*run)(void);
};

static struct hostile_case hostile_cases[HOSTILE_MAX_CASES];
static size_t hostile_count;
static int hostile_overflow;

static void hostile_register(const char* name, void (*run)(void)) {
    if (hostile_count < HOSTILE_MAX_CASES) {
        hostile_cases[hostile_count].name = name;
        hostile_cases[hostile_count].run = run;
        hostile_count++;
    } else {
        hostile_overflow = 1;
    }
}

/* Defines and registers the case for the entry point `fn`; the body follows. */
#define HOSTILE(fn)                                                          \
    static void hostile_##fn(void);                                          \
    __attribute__((constructor)) static void hostile_register_##fn(void) {   \
        hostile_register(#fn, hostile_##fn);                                 \
    }                                                                        \
    static void hostile_##fn(void)

/* Runs every case in name order (a stable, reviewable output). */
static void hostile_run_all(void) {
    size_t i, j;
    CHECK(!hostile_overflow, "more than %d hostile cases: raise HOSTILE_MAX_CASES",
          HOSTILE_MAX_CASES);
    for (i = 1; i < hostile_count; i++) {
        for (j = i; j > 0 && strcmp(hostile_cases[j - 1].name, hostile_cases[j].name) > 0; j--) {
            struct hostile_case t = hostile_cases[j];
            hostile_cases[j] = hostile_cases[j - 1];
            hostile_cases[j - 1] = t;
        }
    }
    for (i = 0; i < hostile_count; i++) {
        hostile_cases[i].run();
        printf("hostile case %s\n", hostile_cases[i].name);
        fflush(stdout);
    }
}

/* A handle no call gave out (the SIL's handles are tagged numbers; this one has no tag). */
#define FORGED_HANDLE ((void*)(uintptr_t)0x7e57ab1e0)

/* Counts no caller array can hold; a call trusts its count only as far as reading the
 * caller's array, so each of these must be refused before anything is read or allocated. */
static const size_t HOSTILE_COUNTS[] = {SIZE_MAX, SIZE_MAX / 2 + 1, (size_t)1 << 40,
                                        (size_t)INT32_MAX + 1};
#define HOSTILE_NCOUNTS (sizeof(HOSTILE_COUNTS) / sizeof(HOSTILE_COUNTS[0]))
/* The first two: count * element size passes isize::MAX for every element type, so no
 * caller array can have that many elements. Calls that trust a count over a caller's array
 * (sil/README.md, "Hostile arguments") get only these with a non-NULL array. */
#define HOSTILE_NOVERFLOW 2u

/* Valid memory with wrong contents: every byte 0xFF (a "struct" of garbage). */
static unsigned char hostile_garbage[512];
static void hostile_init_garbage(void) {
    memset(hostile_garbage, 0xFF, sizeof(hostile_garbage));
}

#endif
