#pragma once
// The one architecture guard of kernelgate's device code. A gpu build
// compiles every candidate for every architecture in its list (80, 89, 90a,
// 100a by default); an instruction that exists on one architecture alone
// (sm_90a's wgmma, sm_100a's tcgen05) must still compile for the others, and
// there its body becomes a trap. The wrappers of kernelgate/ptx.hpp test the
// macros below; a candidate never tests __CUDA_ARCH__ or the feature macros
// itself (`kernelgate lint`, rule architecture-guard): interpret mode would
// take another branch than the GPU, and each copy would be a guard to keep
// right. A candidate whose kernels use such an instruction says so in its
// registration (Candidate::needs, kernelgate/candidate.hpp), and the runner
// never launches it on another architecture.
//
//   KG_ARCH_HAS_SM90A    1 where sm_90a's instructions exist (wgmma,
//                        setmaxnreg): device code compiled for sm_90a.
//   KG_ARCH_HAS_SM100A   1 where sm_100a's do (tcgen05): device code
//                        compiled for sm_100a.
//   KG_ARCH_HAS_SM90     1 where sm_90's are (fence.proxy.async, cp.async.
//                        bulk, mbarrier try_wait): any sm_90 or later.
//
// All three are 1 in the host pass of nvcc, which compiles no device
// instruction, and in interpret mode, which runs every candidate on the cpu
// device; on the simulated GPU interpret mode checks the card instead
// (docs/simulated-gpu.md).

#if defined(__CUDA_ARCH__)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KG_ARCH_HAS_SM90A 1
#else
#define KG_ARCH_HAS_SM90A 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define KG_ARCH_HAS_SM100A 1
#else
#define KG_ARCH_HAS_SM100A 0
#endif
#if __CUDA_ARCH__ >= 900
#define KG_ARCH_HAS_SM90 1
#else
#define KG_ARCH_HAS_SM90 0
#endif
#else
#define KG_ARCH_HAS_SM90A 1
#define KG_ARCH_HAS_SM100A 1
#define KG_ARCH_HAS_SM90 1
#endif
