// The pipeline's kernels. `orin-exec kernels build` compiles this file into SASS-only cubins
// (kernels/cubins/) with the pinned nvcc and records them in kernels/manifest.toml. Keep
// kernels `extern "C"` with pointer, uint32_t, int32_t, uint64_t or float parameters: the
// tool reads their kinds from these declarations.
#include <stdint.h>

// out[i] = in[i] * gain for i < n.
extern "C" __global__ void scale(const float* __restrict__ in, float* __restrict__ out,
                                 uint32_t n, float gain) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * gain;
    }
}
