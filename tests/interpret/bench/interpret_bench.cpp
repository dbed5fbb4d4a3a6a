// Micro-benchmark of interpret mode: the cost of a block barrier over 256
// threads, of a warp shuffle, of an mma.sync host body, and of running a
// thread to its end. A plain timed program (not a test); the figures are
// quoted in docs/status.md. Run: interpret_bench [scale].
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace kg::bench {
void barrier_loop(int blocks, int threads, int iterations, int* out);
void shuffle_loop(int blocks, int threads, int iterations, int* out);
void mma_loop(int blocks, int threads, int iterations, float* out);
void empty(int blocks, int threads, int* out);
}  // namespace kg::bench

namespace {

// Process CPU time, not wall time: the figures should not depend on what else
// the machine runs (with one host thread they are the same on an idle machine).
double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

template <typename Body>
double seconds(Body&& body) {
  const double start = cpu_seconds();
  body();
  return cpu_seconds() - start;
}

}  // namespace

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  std::vector<int> ints(1 << 16);
  std::vector<float> floats(1 << 16);
  std::printf("interpret-mode micro-benchmark (process CPU time; set KG_INTERPRET_THREADS=1 for per-thread costs)\n");

  const int barriers = 2000 * scale;
  kg::bench::barrier_loop(1, 256, 10, ints.data());  // warm up: stacks mapped
  const double barrier_s = seconds([&] { kg::bench::barrier_loop(1, 256, barriers, ints.data()); });
  std::printf("barrier over 256 threads:   %8.2f us per __syncthreads (%.1f ns per thread)\n",
              barrier_s / barriers * 1e6, barrier_s / barriers / 256 * 1e9);

  const int shuffles = 2000 * scale;
  const double shuffle_s = seconds([&] { kg::bench::shuffle_loop(1, 256, shuffles, ints.data()); });
  const double per_warp_shuffle = shuffle_s / shuffles / 8;
  std::printf("warp shuffle (32 lanes):    %8.2f us per __shfl_xor_sync of a warp (%.1f ns per lane)\n",
              per_warp_shuffle * 1e6, per_warp_shuffle / 32 * 1e9);

  const int mmas = 2000 * scale;
  const double mma_s = seconds([&] { kg::bench::mma_loop(1, 128, mmas, floats.data()); });
  const double per_mma = mma_s / mmas / 4;
  std::printf("mma.sync m16n8k8 tf32:      %8.2f us per warp-wide mma (%.0f M multiply-adds/s)\n",
              per_mma * 1e6, 1024 / per_mma / 1e6);

  const int blocks = 2000 * scale;
  const double empty_s = seconds([&] { kg::bench::empty(blocks, 256, ints.data()); });
  std::printf("thread without barriers:    %8.1f ns per thread (start, run, end)\n",
              empty_s / blocks / 256 * 1e9);
  return 0;
}
