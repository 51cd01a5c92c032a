/* Failure reporting shared by the C conformance clients: each client defines `failures`
 * (or links common.c, which does) and reports through FAIL and CHECK. */
#ifndef SIL_CLIENT_CHECK_H
#define SIL_CLIENT_CHECK_H

#include <stdio.h>

extern int failures;

#define FAIL(...)                                            \
    do {                                                     \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                        \
        fprintf(stderr, "\n");                               \
        failures++;                                          \
    } while (0)

#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond)) {         \
            FAIL(__VA_ARGS__); \
        }                      \
    } while (0)

#endif
