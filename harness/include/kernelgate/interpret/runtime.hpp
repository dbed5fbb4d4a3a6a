#pragma once
// The interpret-mode runtime: what kernelgate/cuda.hpp provides when KG_INTERPRET
// is defined. It never includes a CUDA header, so the cpu build needs no CUDA
// toolkit. docs/interpret-mode.md describes how kernels run.
#include "kernelgate/error.hpp"
#include "kernelgate/interpret/builtins.hpp"
#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/intrinsics.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/qualifiers.hpp"
#include "kernelgate/interpret/sync.hpp"
#include "kernelgate/interpret/vector_types.hpp"
