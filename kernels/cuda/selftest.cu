// Small kernels for the back-to-back (GPU vs reference model) tests. Reference models:
// orin-exec-kernels, src/selftest.rs.
//
// Build: SASS only, see kernels/manifest.toml.
#include <stdint.h>

// The pattern value of element i: a 32-bit integer mix of i and seed (wrapping arithmetic).
__device__ __forceinline__ uint32_t pattern_u32(uint32_t i, uint32_t seed) {
    uint32_t x = i * 0x9E3779B9u + seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

// dst[i] = pattern_u32(i, seed) for i < n. Any 1D grid (grid-stride loop).
extern "C" __global__ void fill_pattern_u32(uint32_t* __restrict__ dst, uint32_t n, uint32_t seed) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        dst[i] = pattern_u32((uint32_t)i, seed);
    }
}

// y[i] = fmaf(a, x[i], y[i]) for i < n (one rounding). Any 1D grid (grid-stride loop).
extern "C" __global__ void saxpy_f32(float a, const float* __restrict__ x, float* __restrict__ y,
                                     uint32_t n) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = fmaf(a, x[i], y[i]);
    }
}
