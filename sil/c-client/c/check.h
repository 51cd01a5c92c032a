/* Failure reporting shared by the C conformance clients: each client defines `failures`
 * (or links common.c, which does) and reports through FAIL and CHECK, and NvSci calls
 * through SCI and EXPECT_SCI. */
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

/* An NvSci call (declared in api.h, which the client includes) that must succeed; on failure report it and `goto cleanup`. */
#define SCI(call)                                                        \
    do {                                                                 \
        NvSciError e_ = (call);                                          \
        if (e_ != NvSciError_Success) {                                  \
            FAIL("%s returned NvSciError 0x%x", #call, (unsigned)e_);    \
            goto cleanup;                                                \
        }                                                                \
    } while (0)

/* An NvSci call whose status must be `expected` (reported, execution continues). */
#define EXPECT_SCI(call, expected)                                                        \
    do {                                                                                  \
        NvSciError e_ = (call);                                                           \
        if (e_ != (expected)) {                                                           \
            FAIL("%s returned NvSciError 0x%x, expected %s (0x%x)", #call, (unsigned)e_,  \
                 #expected, (unsigned)(expected));                                        \
        }                                                                                 \
    } while (0)

#endif
