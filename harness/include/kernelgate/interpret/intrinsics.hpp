#pragma once
// Atomics, fences and arithmetic intrinsics of CUDA device code, for interpret
// mode. Threads of one block run cooperatively on one host thread, but blocks
// may run in parallel on several host threads, so atomics are real atomics.
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <math.h>

namespace kg::interp {
template <typename T>
inline T atomic_fetch_add(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value, std::memory_order_relaxed);
}
template <typename T, typename Update>
inline T atomic_update(T* address, Update update) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, update(old), std::memory_order_relaxed)) {
  }
  return old;
}
}  // namespace kg::interp

// ---- atomics: return the old value, as on the GPU ----
inline int atomicAdd(int* a, int v) { return kg::interp::atomic_fetch_add(a, v); }
inline unsigned atomicAdd(unsigned* a, unsigned v) { return kg::interp::atomic_fetch_add(a, v); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return kg::interp::atomic_fetch_add(a, v);
}
inline float atomicAdd(float* a, float v) { return kg::interp::atomic_fetch_add(a, v); }
inline double atomicAdd(double* a, double v) { return kg::interp::atomic_fetch_add(a, v); }
inline int atomicSub(int* a, int v) { return kg::interp::atomic_fetch_add(a, -v); }
inline unsigned atomicSub(unsigned* a, unsigned v) { return kg::interp::atomic_fetch_add(a, 0u - v); }

#define KG_INTERP_ATOMIC_UPDATE(name, type, expr)                        \
  inline type name(type* a, type v) {                                   \
    return kg::interp::atomic_update(a, [v](type old) -> type { return expr; }); \
  }
KG_INTERP_ATOMIC_UPDATE(atomicMax, int, old > v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMax, unsigned, old > v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMax, long long, old > v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMax, unsigned long long, old > v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMin, int, old < v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMin, unsigned, old < v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMin, long long, old < v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicMin, unsigned long long, old < v ? old : v)
KG_INTERP_ATOMIC_UPDATE(atomicAnd, int, old & v)
KG_INTERP_ATOMIC_UPDATE(atomicAnd, unsigned, old & v)
KG_INTERP_ATOMIC_UPDATE(atomicOr, int, old | v)
KG_INTERP_ATOMIC_UPDATE(atomicOr, unsigned, old | v)
KG_INTERP_ATOMIC_UPDATE(atomicXor, int, old ^ v)
KG_INTERP_ATOMIC_UPDATE(atomicXor, unsigned, old ^ v)
KG_INTERP_ATOMIC_UPDATE(atomicExch, int, v)
KG_INTERP_ATOMIC_UPDATE(atomicExch, unsigned, v)
KG_INTERP_ATOMIC_UPDATE(atomicExch, unsigned long long, v)
KG_INTERP_ATOMIC_UPDATE(atomicExch, float, v)
KG_INTERP_ATOMIC_UPDATE(atomicInc, unsigned, old >= v ? 0u : old + 1u)
KG_INTERP_ATOMIC_UPDATE(atomicDec, unsigned, (old == 0u || old > v) ? v : old - 1u)
#undef KG_INTERP_ATOMIC_UPDATE

template <typename T>
inline T kg_interp_atomic_cas(T* a, T compare, T value) {
  std::atomic_ref<T>(*a).compare_exchange_strong(compare, value, std::memory_order_relaxed);
  return compare;  // the old value, whether or not it was replaced
}
inline int atomicCAS(int* a, int compare, int value) { return kg_interp_atomic_cas(a, compare, value); }
inline unsigned atomicCAS(unsigned* a, unsigned compare, unsigned value) {
  return kg_interp_atomic_cas(a, compare, value);
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare,
                                    unsigned long long value) {
  return kg_interp_atomic_cas(a, compare, value);
}

// ---- fences and loads ----
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_signal_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
template <typename T>
inline T __ldg(const T* p) { return *p; }
template <typename T>
inline T __ldcg(const T* p) { return *p; }
template <typename T>
inline T __ldcs(const T* p) { return *p; }
template <typename T>
inline void __stcg(T* p, T v) { *p = v; }
template <typename T>
inline void __stcs(T* p, T v) { *p = v; }

// ---- bit reinterpretation ----
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }

// ---- float arithmetic with explicit rounding (round-to-nearest is the host's) ----
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(std::floor(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(std::ceil(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned x) { return static_cast<float>(x); }

// ---- integer intrinsics ----
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
inline int __ffsll(long long x) {
  return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1;
}
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }

// ---- CUDA's global min/max overloads for device code ----
#define KG_INTERP_MIN_MAX(type)                                  \
  inline type min(type a, type b) { return b < a ? b : a; }     \
  inline type max(type a, type b) { return a < b ? b : a; }
KG_INTERP_MIN_MAX(int)
KG_INTERP_MIN_MAX(unsigned)
KG_INTERP_MIN_MAX(long)
KG_INTERP_MIN_MAX(unsigned long)
KG_INTERP_MIN_MAX(long long)
KG_INTERP_MIN_MAX(unsigned long long)
#undef KG_INTERP_MIN_MAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline unsigned min(int a, unsigned b) { return min(static_cast<unsigned>(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, static_cast<unsigned>(b)); }
inline unsigned max(int a, unsigned b) { return max(static_cast<unsigned>(a), b); }
inline unsigned max(unsigned a, int b) { return max(a, static_cast<unsigned>(b)); }
