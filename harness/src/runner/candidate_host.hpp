#pragma once
// The side of the runner where a candidate's code runs (the child process,
// or this process in tests). It carries out the parent's commands with the
// harness's own primitives and answers with what it observed: times, scans,
// hashes compared, guard bands, the stream audit, output values. It decides
// nothing: the verdict is the parent's (check_candidate.cpp), and the float64
// reference never enters this side.
//
// Commands (the header's "command"; each answered by one message, their
// fields the structs of child_channel.hpp):
//   open     OpenRequest -> OpenReply. Calls unsupported_reason and
//            workspace_bytes, generates input sets A and B, allocates every
//            buffer with guard bands.
//   run      RunRequest -> RunReply. Loads the set, poisons output and
//            workspace, launches once (between events when timed, caches
//            flushed first; counted when asked), then checks the guard
//            bands and the input hashes and scans the whole output.
//   values   ValuesRequest -> the output's values at those points.
//   strict   StrictRequest -> StrictReply and the strict values at the
//            indices (gpu build: the whole output against the strict-FP32
//            reference).
//   warmup   CountRequest -> {}: untimed launches on set A, not checked.
//   overhead CountRequest -> OverheadReply: empty kernels timed as runs are.
//   close    {} -> {nonce}: the nonce the open command carried.
// A candidate that throws, or a device fault, answers {failed: "..."}.
#include <memory>
#include <string>

#include "child_channel.hpp"
#include "kernelgate/detail/device.hpp"

namespace kg::detail {

class CandidateHost {
 public:
  // `device`: the device to run on, owned by the caller; nullptr to open the
  // one the open command names (the child). `pin_interpret_modes`:
  // interpret mode's thread order and tensor-core arithmetic come from the
  // open command and the environment is never read again (the child);
  // otherwise it is read at each launch (tests).
  CandidateHost(Device* device, bool pin_interpret_modes);
  ~CandidateHost();
  CandidateHost(const CandidateHost&) = delete;
  CandidateHost& operator=(const CandidateHost&) = delete;

  Message handle(const Message& command);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// How the parent talks to a CandidateHost. call() returns the reply; a
// session whose candidate can no longer answer (its process died or hung)
// throws detail::Finding with the outcome.
class CandidateSession {
 public:
  virtual ~CandidateSession() = default;
  virtual Message call(const Message& command) = 0;
};

// A CandidateHost in this process: no isolation (tests of the checks).
class InProcessSession final : public CandidateSession {
 public:
  explicit InProcessSession(Device& device) : host_(&device, false) {}
  Message call(const Message& command) override { return host_.handle(command); }

 private:
  CandidateHost host_;
};

}  // namespace kg::detail
