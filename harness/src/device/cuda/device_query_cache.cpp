// The memory behind kernelgate/cuda.hpp's device queries: what the driver
// already answered in this process (opt-ins set, occupancy, device
// attributes), so that a launch in the timed region pays for no query. Here
// rather than in the header, so a candidate's compile includes no map or
// mutex. A candidate's child drives one device, so the current device's
// attributes are keyed by the attribute alone.
#include <map>
#include <mutex>
#include <tuple>

#include "kernelgate/cuda.hpp"

namespace kg::detail {
namespace {

struct DeviceQueryCache {
  std::mutex mutex;
  std::map<const void*, std::size_t> dynamic_smem;                          // the opt-in already set
  std::map<std::tuple<const void*, int, std::size_t>, int> active_blocks;  // occupancy answers
  std::map<cudaDeviceAttr, int> attributes;
};

DeviceQueryCache& cache() {
  static DeviceQueryCache instance;
  return instance;
}

template <typename Map, typename Key>
auto remembered(const Map& map, const Key& key) -> typename Map::mapped_type {
  const auto found = map.find(key);
  return found == map.end() ? typename Map::mapped_type{} : found->second;
}

}  // namespace

std::size_t remembered_dynamic_smem(const void* kernel) {
  std::lock_guard lock(cache().mutex);
  return remembered(cache().dynamic_smem, kernel);
}

void remember_dynamic_smem(const void* kernel, std::size_t bytes) {
  std::lock_guard lock(cache().mutex);
  cache().dynamic_smem[kernel] = bytes;
}

int remembered_active_blocks(const void* kernel, int threads, std::size_t dynamic_smem_bytes) {
  std::lock_guard lock(cache().mutex);
  return remembered(cache().active_blocks, std::make_tuple(kernel, threads, dynamic_smem_bytes));
}

void remember_active_blocks(const void* kernel, int threads, std::size_t dynamic_smem_bytes, int blocks) {
  std::lock_guard lock(cache().mutex);
  cache().active_blocks[std::make_tuple(kernel, threads, dynamic_smem_bytes)] = blocks;
}

int remembered_device_attribute(cudaDeviceAttr attribute) {
  std::lock_guard lock(cache().mutex);
  return remembered(cache().attributes, attribute);
}

void remember_device_attribute(cudaDeviceAttr attribute, int value) {
  std::lock_guard lock(cache().mutex);
  cache().attributes[attribute] = value;
}

}  // namespace kg::detail
