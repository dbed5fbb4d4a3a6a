#pragma once
// What test binaries use of the runner and nothing else does: a candidate
// checked in the test's own process, and the child entry of a test binary
// that runs candidates in children as `kernelgate run` does.
#include <optional>

#include "kernelgate/detail/runner.hpp"

namespace kg {

// One candidate checked and timed with its code in the current process (the
// same checks as run_workload, without isolation): a crash or hang here
// takes the process with it, which is why run_workload uses a child. The
// interpret-mode thread order is the environment's.
CandidateResult check_candidate(const Suite& suite, const Candidate& candidate, Device& device,
                                const Axes& axes, const RunOptions& options);

// If argv is the child subcommand, runs it and returns its exit code;
// otherwise nullopt. A test binary's main calls it first.
std::optional<int> run_child_if_requested(int argc, char** argv);

}  // namespace kg
