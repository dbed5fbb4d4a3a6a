// Test kernels for warp shuffles and votes.
#include "test_kernels.hpp"

namespace kg::test {

namespace {

__global__ void shuffle_kernel(int kind, unsigned mask, int operand, int width, int* out) {
  const int lane = threadIdx.x;
  if (((mask >> lane) & 1u) == 0) return;  // not a participant
  const int value = 100 + lane;
  int result = -1;
  switch (kind) {
    case 0:
      result = __shfl_sync(mask, value, operand, width);
      break;
    case 1:
      result = __shfl_up_sync(mask, value, static_cast<unsigned>(operand), width);
      break;
    case 2:
      result = __shfl_down_sync(mask, value, static_cast<unsigned>(operand), width);
      break;
    default:
      result = __shfl_xor_sync(mask, value, operand, width);
      break;
  }
  out[lane] = result;
}

__global__ void shuffle_double_xor_kernel(int lane_mask, double* out) {
  const int lane = threadIdx.x;
  const double value = 0.5 + lane + 1099511627776.0;  // needs both 32-bit halves
  out[lane] = __shfl_xor_sync(0xffffffffu, value, lane_mask);
}

__global__ void vote_kernel(unsigned mask, unsigned predicates, unsigned* out) {
  const int lane = threadIdx.x;
  if (((mask >> lane) & 1u) == 0) return;
  const int predicate = (predicates >> lane) & 1u;
  out[3 * lane + 0] = __ballot_sync(mask, predicate);
  out[3 * lane + 1] = static_cast<unsigned>(__any_sync(mask, predicate));
  out[3 * lane + 2] = static_cast<unsigned>(__all_sync(mask, predicate));
}

__global__ void shuffle_after_lane_exit_kernel(int exiting, int* out) {
  const int lane = threadIdx.x;
  if (lane == exiting) return;
  out[lane] = __shfl_sync(0xffffffffu, lane, 0);  // KG-MARK exited-lane-shuffle
}

__global__ void syncwarp_exchange_kernel(int* out) {
  __shared__ int slots[32];
  const int lane = threadIdx.x;
  slots[lane] = lane * 3;
  __syncwarp();
  out[lane] = slots[31 - lane];
}

}  // namespace

void shuffle(ShuffleKind kind, unsigned mask, int operand, int width, int* out,
             cudaStream_t stream) {
  kg::launch(shuffle_kernel, dim3(1), dim3(32), 0, stream, static_cast<int>(kind), mask, operand,
             width, out);
}

void shuffle_double_xor(int lane_mask, double* out, cudaStream_t stream) {
  kg::launch(shuffle_double_xor_kernel, dim3(1), dim3(32), 0, stream, lane_mask, out);
}

void vote(unsigned mask, unsigned predicates, unsigned* out, cudaStream_t stream) {
  kg::launch(vote_kernel, dim3(1), dim3(32), 0, stream, mask, predicates, out);
}

void shuffle_after_lane_exit(int exiting, int* out, cudaStream_t stream) {
  kg::launch(shuffle_after_lane_exit_kernel, dim3(1), dim3(32), 0, stream, exiting, out);
}

void syncwarp_exchange(int* out, cudaStream_t stream) {
  kg::launch(syncwarp_exchange_kernel, dim3(1), dim3(32), 0, stream, out);
}

}  // namespace kg::test
