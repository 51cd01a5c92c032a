// AEB perception slice kernels: preprocess (camera -> int8 tensor) and postprocess
// (obstacle map -> detection). Reference models: orin-exec-kernels, src/aeb.rs.
//
// Build: SASS only (`-cubin -gencode arch=compute_XX,code=sm_XX`), never PTX; see
// kernels/manifest.toml for the exact flags. Floating point uses explicit round-to-nearest
// intrinsics so that nvcc cannot contract or approximate anything (see kernels/README.md).
#include <stdint.h>

// dst is (src_w / 2) x (src_h / 2), row pitch src_w / 2; src has row pitch src_w.
// dst[y][x] = (src[2y][2x] + src[2y][2x+1] + src[2y+1][2x] + src[2y+1][2x+1] + 2) / 4 - 128.
// One thread per output pixel; any 2D grid that covers the output works (suggested: 16x16 blocks).
extern "C" __global__ void aeb_preprocess(const uint8_t* __restrict__ src, int8_t* __restrict__ dst,
                                          uint32_t src_w, uint32_t src_h) {
    const uint32_t dst_w = src_w / 2u;
    const uint32_t dst_h = src_h / 2u;
    for (uint32_t y = blockIdx.y * blockDim.y + threadIdx.y; y < dst_h; y += gridDim.y * blockDim.y) {
        for (uint32_t x = blockIdx.x * blockDim.x + threadIdx.x; x < dst_w; x += gridDim.x * blockDim.x) {
            const uint64_t top = (uint64_t)(2u * y) * src_w + 2u * x;
            const uint64_t bot = top + src_w;
            const uint32_t sum = (uint32_t)src[top] + (uint32_t)src[top + 1] + (uint32_t)src[bot] +
                                 (uint32_t)src[bot + 1];
            dst[(uint64_t)y * dst_w + x] = (int8_t)((int32_t)((sum + 2u) / 4u) - 128);
        }
    }
}

#define AEB_POST_MAX_THREADS 1024

// Nearest obstacle in the lane. Launch with ONE block (any shape, at most 1024 threads; suggested
// 256x1x1); blocks other than (0,0,0) do nothing.
//
// Scanning rows from the bottom (largest index) up, the first row whose maximum score over the
// columns [lane_x0, min(lane_x1, map_w)) is > threshold is the detection.
//   out[0] = found (0 / 1)
//   out[1] = row, or -1
//   out[2] = that row's lane maximum; if none found, the maximum over the whole map
//            (-128 for an empty map)
//   out[3] = distance in mm = (int32) roundf(1000 * fh / (row * row_scale + row_offset - horizon))
//            when found and the denominator is > 0, else -1.
extern "C" __global__ void aeb_postprocess(const int8_t* __restrict__ map, uint32_t map_w,
                                           uint32_t map_h, int32_t threshold, uint32_t lane_x0,
                                           uint32_t lane_x1, float row_scale, float row_offset,
                                           float horizon, float fh, int32_t* __restrict__ out) {
    if (blockIdx.x != 0 || blockIdx.y != 0 || blockIdx.z != 0) {
        return;
    }
    __shared__ int32_t s_row[AEB_POST_MAX_THREADS];
    __shared__ int32_t s_max[AEB_POST_MAX_THREADS];

    const uint32_t n = blockDim.x * blockDim.y * blockDim.z;
    const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const uint32_t x1 = lane_x1 < map_w ? lane_x1 : map_w;

    // Each thread owns the rows tid, tid + n, ...: the largest row it owns whose lane maximum is
    // above the threshold, and the maximum over all columns of its rows.
    int32_t best_row = -1;
    int32_t gmax = -128;
    for (uint32_t r = tid; r < map_h; r += n) {
        const int8_t* row = map + (uint64_t)r * map_w;
        int32_t lane_max = INT32_MIN;
        for (uint32_t c = 0; c < map_w; ++c) {
            const int32_t v = row[c];
            gmax = v > gmax ? v : gmax;
            if (c >= lane_x0 && c < x1) {
                lane_max = v > lane_max ? v : lane_max;
            }
        }
        if (lane_x0 < x1 && lane_max > threshold) {
            best_row = (int32_t)r;  // rows increase with r, so the last hit is the largest
        }
    }
    s_row[tid] = best_row;
    s_max[tid] = gmax;
    __syncthreads();

    // Tree reduction (max, max), correct for any n <= 1024.
    for (uint32_t s = 1; s < n; s <<= 1) {
        if ((tid % (2u * s)) == 0u && tid + s < n) {
            const int32_t r2 = s_row[tid + s];
            const int32_t m2 = s_max[tid + s];
            s_row[tid] = r2 > s_row[tid] ? r2 : s_row[tid];
            s_max[tid] = m2 > s_max[tid] ? m2 : s_max[tid];
        }
        __syncthreads();
    }

    if (tid == 0) {
        const int32_t row = s_row[0];
        if (row >= 0) {
            const int8_t* p = map + (uint64_t)row * map_w;
            int32_t score = INT32_MIN;
            for (uint32_t c = lane_x0; c < x1; ++c) {
                const int32_t v = p[c];
                score = v > score ? v : score;
            }
            // Explicit round-to-nearest operations: no FMA contraction, IEEE division.
            const float denom = __fsub_rn(__fadd_rn(__fmul_rn((float)row, row_scale), row_offset), horizon);
            int32_t dist = -1;
            if (denom > 0.0f) {
                dist = (int32_t)roundf(__fdiv_rn(__fmul_rn(1000.0f, fh), denom));
            }
            out[0] = 1;
            out[1] = row;
            out[2] = score;
            out[3] = dist;
        } else {
            out[0] = 0;
            out[1] = -1;
            out[2] = s_max[0];
            out[3] = -1;
        }
    }
}
