#include "fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernelgate/error.hpp"


namespace kg::interp {

namespace {
std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}
}  // namespace

FiberStack::FiberStack(std::size_t usable_bytes) {
  const std::size_t page = page_size();
  size_ = (usable_bytes + page - 1) / page * page;
  mapping_size_ = size_ + page;
  mapping_ = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (mapping_ == MAP_FAILED)
    throw Error("interpret mode: cannot map a fiber stack of " + std::to_string(mapping_size_) +
                " bytes: " + std::strerror(errno));
  // Stacks grow down: the guard page is the lowest page of the mapping.
  if (mprotect(mapping_, page, PROT_NONE) != 0) {
    munmap(mapping_, mapping_size_);
    throw Error(std::string("interpret mode: cannot protect a fiber stack guard page: ") +
                std::strerror(errno));
  }
  usable_ = static_cast<char*>(mapping_) + page;
}

FiberStack::~FiberStack() {
  if (mapping_ != nullptr && mapping_ != MAP_FAILED) munmap(mapping_, mapping_size_);
}

std::size_t fiber_stack_bytes() {
  std::size_t kib = 256;
  if (const char* text = std::getenv("KG_INTERPRET_STACK_KB"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || value < 16 || value > 1024 * 1024)
      throw Error(std::string("KG_INTERPRET_STACK_KB='") + text +
                  "' is not a stack size in KiB between 16 and 1048576");
    kib = static_cast<std::size_t>(value);
  }
#if defined(KG_INTERPRET_SANITIZE)
  kib *= 4;
#endif
  return kib * 1024;
}

FiberContext make_fiber_context(const FiberStack& stack, void (*entry)(FiberTransfer)) {
  return boost::context::detail::make_fcontext(stack.top(), stack.size(), entry);
}


}  // namespace kg::interp
