// GPU timestamping. Reference model: orin-exec-kernels, src/timing.rs (writes the SIL CUDA
// stream clock instead).
//
// Build: SASS only, see kernels/manifest.toml.

// Writes the PTX %globaltimer register (nanoseconds) to *slot. Launch <<<1, 1>>>; only thread
// (0,0,0) of block (0,0,0) writes.
extern "C" __global__ void stamp_globaltimer(unsigned long long* slot) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
        blockIdx.y == 0 && blockIdx.z == 0) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        *slot = t;
    }
}
