// kernelgate device: which device a run would use, its hardware key (which
// baselines it reads and writes) and its CTest label, so a runner can be
// checked, and ci/device-check.sh can pick the tests of its GPU class.
#include <cstdio>
#include <string>

#include "command.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/gpu_identity.hpp"

namespace kg::cli {
namespace {

struct DeviceOptions {
  std::string device = "auto";
  bool label_only = false;
};

}  // namespace

Work add_device_command(CLI::App& command, CommonOptions&) {
  auto options = std::make_shared<DeviceOptions>();
  command.add_option("--device", options->device, "auto (default), cpu, cuda or cuda:N");
  command.add_flag("--label", options->label_only,
                   "Print only the CTest label (cpu, a100, l40s, h100, h200, gh200, b200, gb200, or gpu for any other GPU)");
  return [options] {
    // A missing GPU is an error here (describe_device names the reason, and
    // a compute mode that keeps candidates off the GPU): this command exists
    // to say what the runner has, as a run would find it.
    const DeviceDescription device = describe_device(options->device);
    const std::string label = hardware_label(device.hardware_key);
    if (options->label_only) {
      std::printf("%s\n", label.c_str());
      return 0;
    }
    std::printf("device        %s\nhardware key  %s\nctest label   %s\n%s\n", device.name.c_str(),
                device.hardware_key.c_str(), label.c_str(), device.environment.dump(2).c_str());
    return 0;
  };
}

}  // namespace kg::cli
