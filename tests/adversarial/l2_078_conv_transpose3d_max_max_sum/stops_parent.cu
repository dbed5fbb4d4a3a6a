// Adversarial candidate: on its first call it stops the parent (SIGSTOP),
// sleeps past the watchdog limit, resumes the parent and then answers
// correctly, so a watchdog that only counts time while the parent runs would
// never fire. The limit is on elapsed wall time: timed_out.
#include <signal.h>
#include <unistd.h>

#include <mutex>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l2_078_conv_transpose3d_max_max_sum";

void stop_the_parent(const kg::LaunchArgs& args) {
  static std::once_flag first_call;
  std::call_once(first_call, [] {
    const pid_t parent = getppid();
    kill(parent, SIGSTOP);
    sleep(kg::adversarial::wait_seconds());
    kill(parent, SIGCONT);
  });
  kg::adversarial::launch_honest(kWorkload, args);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: stops the parent until it is done", stop_the_parent)});

}  // namespace
