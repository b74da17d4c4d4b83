#pragma once
// QSA_HOST_AND_DEVICE marks a formula of the contract that the CUDA code calls on the device too, so
// each formula is written once. Empty for a host compiler; no CUDA header is included.

#if defined(__CUDACC__)
#define QSA_HOST_AND_DEVICE __host__ __device__
#else
#define QSA_HOST_AND_DEVICE
#endif
