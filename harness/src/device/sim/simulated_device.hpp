#pragma once
// The `sim:<key>` device specs (docs/simulated-gpu.md): the cuda device's
// own code on the simulated GPU of kernelgate/interpret/simulated_gpu.hpp,
// in the cpu build. What the simulated hardware does is scripted through the
// environment of the run's parent, read once there and handed to each
// candidate's child in the spec it opens:
//
//   KERNELGATE_SIM_SM_CLOCK_MHZ=1410          the SM clock it runs at (below boost: a locked clock)
//   KERNELGATE_SIM_THROTTLE=0.2:990           that share of timed samples runs at 990 MHz, throttled
//   KERNELGATE_SIM_COMPUTE_MODE=exclusive_process   (default, exclusive_process, prohibited)
//   KERNELGATE_SIM_FAULT_AT_LAUNCH=5          the 5th kernel a process runs faults (sticky)
//
// The spec a child opens carries them, and the file an exclusive-process
// card's lock is on: "sim:h100-sxm;clock=1410;throttle=200:990;mode=3;fault=5;lock=/tmp/...lock".
#include <functional>
#include <string>

namespace kg::detail {

// `spec` ("sim:<key>") with the script of the environment and a lock token
// of this run: the spec the run's children open. Throws kg::Error naming a
// variable whose value is malformed.
std::string scripted_simulated_gpu(const std::string& spec,
                                   const std::function<const char*(const char*)>& getenv = nullptr);

// Opens, in this process, the simulated GPU `spec` names, as scripted there
// (nothing is read from the environment). Throws kg::Error for an unknown
// card or option, naming the cards there are.
void open_simulated_gpu(const std::string& spec);

}  // namespace kg::detail
