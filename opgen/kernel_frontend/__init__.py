"""Stage 4, kernel frontend: parse Ascend C kernels with libclang and cross-check the spec."""
