#pragma once
// Fiber stacks and context switches for interpret mode (boost::context's
// fcontext: a switch is a few register moves, no system call).
// With KERNELGATE_INTERPRET_SANITIZE, every switch is announced to
// AddressSanitizer so that it keeps track of which stack is live.
#include <cstddef>

#include <boost/context/detail/fcontext.hpp>

#if defined(KG_INTERPRET_SANITIZE)
#include <sanitizer/common_interface_defs.h>
#endif

namespace kg::interp {

using FiberContext = boost::context::detail::fcontext_t;
using FiberTransfer = boost::context::detail::transfer_t;

// An mmap'ed stack with an inaccessible guard page below it, so an overflow
// faults instead of silently corrupting the neighbouring fiber.
class FiberStack {
 public:
  explicit FiberStack(std::size_t usable_bytes);
  ~FiberStack();
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;

  void* bottom() const { return usable_; }  // lowest usable address
  void* top() const { return static_cast<char*>(usable_) + size_; }
  std::size_t size() const { return size_; }

 private:
  void* mapping_ = nullptr;
  std::size_t mapping_size_ = 0;
  void* usable_ = nullptr;
  std::size_t size_ = 0;
};

// The usable stack size of each fiber: KG_INTERPRET_STACK_KB, default 256 KiB
// (four times that under the sanitizers, whose frames are larger).
std::size_t fiber_stack_bytes();

// Makes a context that, when first jumped to, calls entry(transfer) on `stack`.
FiberContext make_fiber_context(const FiberStack& stack, void (*entry)(FiberTransfer));

// The sanitizer notes around one switch. start_switch is called just before
// jumping to a stack, finish_switch just after arriving on one. A fiber that
// will never be resumed passes dying = true.
// Inline and empty without the sanitizers: a switch costs nothing more.
struct SanitizerSwitch {
  void* fake_stack = nullptr;
#if defined(KG_INTERPRET_SANITIZE)
  void start(const void* target_bottom, std::size_t target_size, bool dying = false) {
    __sanitizer_start_switch_fiber(dying ? nullptr : &fake_stack, target_bottom, target_size);
  }
  // Where the switch came from (the scheduler's stack, on a fiber's first entry).
  void finish(const void** from_bottom = nullptr, std::size_t* from_size = nullptr) {
    __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_size);
  }
#else
  void start(const void*, std::size_t, bool = false) {}
  void finish(const void** = nullptr, std::size_t* = nullptr) {}
#endif
};

inline FiberTransfer jump(FiberContext target, void* data) {
  return boost::context::detail::jump_fcontext(target, data);
}

}  // namespace kg::interp
