// Test input for cubin-check (see README.md here): every artifact built from it except the
// plain cubin must be rejected.
extern "C" __global__ void tiny(unsigned int* p) { *p = 42u; }
