/* Failure reporting shared by the C conformance clients: each client defines `failures`
 * (or links common.c, which does) and reports through FAIL and CHECK, and NvSci calls
 * through SCI and EXPECT_SCI (the other APIs' clients define theirs on MUST_RETURN and
 * EXPECT_RETURN). */
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

/* A call returning `type` whose result must be `ok`; on failure report it (the result
 * printed with `fmt`) and `goto cleanup`. */
#define MUST_RETURN(call, type, ok, fmt)                                 \
    do {                                                                 \
        type r_ = (call);                                                \
        if (r_ != (ok)) {                                                \
            FAIL("%s returned " fmt, #call, r_);                         \
            goto cleanup;                                                \
        }                                                                \
    } while (0)

/* A call returning `type` whose result must be `expected` (reported, execution continues). */
#define EXPECT_RETURN(call, type, expected, fmt)                                       \
    do {                                                                               \
        type r_ = (call);                                                              \
        if (r_ != (expected)) {                                                        \
            FAIL("%s returned " fmt ", expected %s (" fmt ")", #call, r_, #expected,   \
                 (type)(expected));                                                    \
        }                                                                              \
    } while (0)

/* An NvSci call (declared in api.h, which the client includes) that must succeed; on
 * failure report it and `goto cleanup`. */
#define SCI(call) MUST_RETURN(call, NvSciError, NvSciError_Success, "NvSciError 0x%x")

/* An NvSci call whose status must be `expected` (reported, execution continues). */
#define EXPECT_SCI(call, expected) EXPECT_RETURN(call, NvSciError, expected, "NvSciError 0x%x")

#endif
