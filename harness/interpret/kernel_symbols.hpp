#pragma once
// A kernel's mangled name, to find its registers in the gpu build's table
// (counters.hpp, KernelResources).
#include <string>

namespace kg::interp {

// The mangled name of the function at `kernel` in the executable's or a
// shared library's symbol table; empty when none names it (a stripped file).
std::string kernel_symbol(const void* kernel);

// The name with every anonymous namespace of its qualified name written the
// same way, so that g++'s and nvcc's spellings of one kernel compare equal.
std::string canonical_kernel_symbol(const std::string& symbol);

}  // namespace kg::interp
