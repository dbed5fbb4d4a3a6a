// The commands a CandidateHost carries out (candidate_host.hpp).
#include "candidate_host.hpp"

#include <algorithm>
#include <limits>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/reference.hpp"
#include "runner_internal.hpp"

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/counters.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/tensor_core_arithmetic.hpp"
#endif

namespace kg::detail {

struct CandidateHost::State {
  Device* device = nullptr;
  std::unique_ptr<Device> owned_device;
  bool pin_interpret_modes = false;
  std::string nonce;

  Suite suite;
  const Candidate* candidate = nullptr;
  // Input sets A and B stay on the device (not given to the candidate); each
  // checked run copies one of them into the buffers the candidate reads, and
  // each timed sample has a set of its own (load_fresh).
  std::vector<DeviceBuffer> inputs, staged_a, staged_b;
  // Hashes of the staged sets, taken once: after a run the candidate's input
  // buffers must still hash to the set that was copied in.
  std::vector<std::uint64_t> hashes_a, hashes_b;
  // A timed sample's set, generated when its run command arrives from a
  // seed told only then (load_fresh), and the hashes of what was loaded.
  std::vector<std::uint64_t> hashes_fresh;
  std::vector<std::string> input_names;  // of `inputs`, in their order
  std::vector<DType> input_dtypes;
  const std::vector<std::uint64_t>* loaded_hashes = nullptr;
  // Opened for `kernelgate model`: the inputs hold set A and are never
  // reloaded; only sampled, counted runs are served.
  bool model_only = false;
  bool opened = false;  // open() staged every buffer (not when unsupported or thrown)
  DeviceBuffer output, workspace;
  DType output_dtype = DType::float32;
  std::int64_t numel = 0;
  LaunchArgs args;

  ~State() {
    if (!device) return;
    for (auto* set : {&inputs, &staged_a, &staged_b})
      for (auto& buffer : *set) device->release(buffer);
    device->release(output);
    device->release(workspace);
  }

  void require_open() const {
    if (!candidate || !opened)
      throw Error("the runner sent a command before the candidate's buffers were ready");
  }

  Message open(const nlohmann::ordered_json& command) {
    check_candidate_registry();
    const OpenRequest request = read_open_request(JsonReader(command, "the runner's open command"));
    suite = load_suite(request.suite_file);
    for (const Candidate* registered : candidates_for(request.workload))
      if (registered->id == request.candidate) candidate = registered;
    if (!candidate)
      throw Error("workload " + request.workload + " has no candidate '" + request.candidate + "' in this binary");
    const Axes& axes = request.axes;
    nonce = request.nonce;
    if (!device) {
      owned_device = open_device(request.device);
      device = owned_device.get();
    }
#if defined(KG_INTERPRET)
    // Before any candidate code runs in this process, and never read again.
    if (pin_interpret_modes) {
      interp::pin_thread_order(interp::parse_thread_order(request.thread_order));
      interp::pin_tensor_core_arithmetic(interp::parse_tensor_core_arithmetic(request.tensor_cores));
    }
#endif

    const std::string reason = candidate->unsupported_reason ? candidate->unsupported_reason(axes) : std::string();
    if (!reason.empty()) return open_reply({.unsupported = reason, .numel = 0, .workspace_bytes = 0, .overlap = {}});
    // `kernelgate model` runs set A once and checks nothing: no set B, no
    // hashes (at full size each costs seconds).
    model_only = request.model;
    const Tensors set_a = generate_inputs(suite, axes, request.seed_a);
    const Tensors set_b = model_only ? Tensors{} : generate_inputs(suite, axes, request.seed_b);
    args.axes = axes;
    std::vector<const TensorSpec*> ordered = suite.tensors_with_role(TensorRole::input);  // then parameters
    for (const TensorSpec* spec : suite.tensors_with_role(TensorRole::parameter)) ordered.push_back(spec);
    const TensorSpec& output_spec = suite.output();
    args.output_shape = suite.shape(output_spec.name, axes);
    numel = element_count(args.output_shape);
    args.workspace_bytes = candidate->workspace_bytes ? candidate->workspace_bytes(axes) : 0;
    for (const TensorSpec* spec : ordered) {
      const auto& a = set_a.at(spec->name);
      const std::vector<std::byte> a_bytes = tensor_bytes(a, spec->dtype);
      const std::size_t bytes = a_bytes.size();
      const std::string role = spec->role == TensorRole::input ? "input " : "parameter ";
      inputs.push_back(device->allocate(bytes, role + spec->name));
      input_names.push_back(spec->name);
      input_dtypes.push_back(spec->dtype);
      args.inputs.push_back({.name = spec->name, .shape = a.shape, .dtype = spec->dtype, .data = inputs.back().data});
      if (model_only) {  // set A straight into the inputs, never reloaded
        device->copy_to_device(inputs.back(), a_bytes.data(), bytes);
        continue;
      }
      staged_a.push_back(device->allocate(bytes, "set A of " + spec->name));
      device->copy_to_device(staged_a.back(), a_bytes.data(), bytes);
      hashes_a.push_back(device->hash(staged_a.back()));
      staged_b.push_back(device->allocate(bytes, "set B of " + spec->name));
      device->copy_to_device(staged_b.back(), tensor_bytes(set_b.at(spec->name), spec->dtype).data(), bytes);
      hashes_b.push_back(device->hash(staged_b.back()));
    }
    output_dtype = output_spec.dtype;
    output = device->allocate(static_cast<std::size_t>(numel) * element_bytes(output_dtype),
                              "output " + output_spec.name);
    if (output_dtype == DType::int64) args.output_int64 = reinterpret_cast<std::int64_t*>(output.data);
    else args.output = reinterpret_cast<float*>(output.data);
    workspace = device->allocate(args.workspace_bytes, "workspace");
    args.workspace = args.workspace_bytes ? workspace.data : nullptr;
    args.stream = device->stream();

    // The harness's own promise, observed rather than assumed.
    std::string overlap;
    for (const auto& input : inputs) {
      if (overlap.empty() && buffers_overlap(output, input)) overlap = "the output buffer overlaps " + input.label;
      if (overlap.empty() && buffers_overlap(workspace, input)) overlap = "the workspace overlaps " + input.label;
    }
    opened = true;
    return open_reply({.unsupported = {}, .numel = numel, .workspace_bytes = args.workspace_bytes, .overlap = overlap});
  }

  void load(const RunRequest& request) {
    if (request.set == "fresh") return load_fresh(request.fresh_seed);
    load(request.set);
  }

  void load(const std::string& set) {
    if (set != "A" && set != "B") throw Error("the runner asked for input set '" + set + "'");
    const auto& staged = set == "A" ? staged_a : staged_b;
    if (staged.size() != inputs.size()) throw Error("input set " + set + " was not staged (a model run has only A)");
    for (std::size_t i = 0; i < inputs.size(); ++i) device->copy_buffer(inputs[i], staged[i]);
    loaded_hashes = set == "A" ? &hashes_a : &hashes_b;
  }

  // Every timed sample runs on inputs no earlier call saw: generated here,
  // outside the timed region, from a seed the parent derives per sample and
  // sends only with this command, so no answer can be computed ahead or
  // replayed by the inputs' content.
  void load_fresh(std::uint64_t seed) {
    if (model_only) throw Error("a fresh input set was asked of a child opened for `kernelgate model`");
    const Tensors set = generate_inputs(suite, args.axes, seed);
    hashes_fresh.clear();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::vector<std::byte> bytes = tensor_bytes(set.at(input_names[i]), input_dtypes[i]);
      device->copy_to_device(inputs[i], bytes.data(), bytes.size());
      hashes_fresh.push_back(device->hash(inputs[i]));
    }
    loaded_hashes = &hashes_fresh;
  }

  Message run(const nlohmann::ordered_json& command) {
    require_open();
    const RunRequest request = read_run_request(JsonReader(command, "the run command"));
    // `kernelgate model`: a counted sample of the blocks, on set A as opened,
    // whose output is not the kernel's; only the counters come back.
    RunReply reply;
    if (request.sample_blocks > 0) {
      if (!model_only) throw Error("a sampled run was asked of a child not opened for `kernelgate model`");
      counted_launch(reply, request.sample_blocks, request.hardware);
      return run_reply(reply);
    }
    if (model_only) throw Error("a checked run was asked of a child opened for `kernelgate model`");
    if (request.empty_kernel && !request.timed) throw Error("an empty-kernel run must be timed");
    load(request);
    device->fill_words(output, kPoisonWord);
    device->fill_words(workspace, kPoisonWord);
    if (request.audit) device->begin_stream_audit();
    if (request.timed) {
      const TimedLaunch timing = device->time([&] {
        if (request.empty_kernel)
          device->launch_empty_kernel();
        else
          candidate->launch(args);
      });
      reply.time_ms = timing.ms;
      reply.sm_clock_mhz = timing.sm_clock_mhz;
      reply.sm_clock_max_mhz = timing.sm_clock_max_mhz;
      reply.sm_clock_set_mhz = timing.sm_clock_set_mhz;
      reply.clock_event_reasons = timing.clock_event_reasons;
      reply.busy_after_ms = timing.busy_after_ms;
      reply.hold_expired = timing.hold_expired;
    } else if (request.count) {
      counted_launch(reply, 0);
    } else {
      candidate->launch(args);
    }
    device->synchronize();
    if (request.audit) reply.stream = device->end_stream_audit();

    for (const auto* set : {&inputs, &staged_a, &staged_b})
      for (const auto& buffer : *set)
        if (reply.guards.empty()) reply.guards = device->check_guards(buffer);
    if (reply.guards.empty()) reply.guards = device->check_guards(output);
    if (reply.guards.empty()) reply.guards = device->check_guards(workspace);
    for (std::size_t i = 0; i < inputs.size() && reply.inputs.empty(); ++i)
      if (device->hash(inputs[i]) != (*loaded_hashes)[i]) reply.inputs = inputs[i].label;
    reply.output_hash = device->hash(output);
    reply.scan = scan_output();
    return run_reply(reply);
  }

  // An int64 output is read back whole (an argmax's is a position per
  // reduced row: small) and scanned here; a float32 output on the device.
  std::vector<std::int64_t> int64_output() const {
    std::vector<std::int64_t> values(static_cast<std::size_t>(numel));
    device->copy_to_host(values.data(), output, values.size() * sizeof(std::int64_t));
    return values;
  }

  FloatScan scan_output() {
    if (output_dtype == DType::float32) return device->scan_floats(output);
    // Two poison words make one never-written int64; no integer is non-finite.
    constexpr std::int64_t kPoisoned = static_cast<std::int64_t>((std::uint64_t{kPoisonWord} << 32) | kPoisonWord);
    FloatScan scan;
    const std::vector<std::int64_t> values = int64_output();
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] == kPoisoned && scan.poisoned++ == 0) scan.first_poisoned = static_cast<std::int64_t>(i);
    return scan;
  }

  // The output's values the request asks for, as floats: an int64 output's
  // as the nearest float, which equals a position below 2^24
  // (ops::kMaxPosition) only when the integer does.
  std::vector<float> output_values(const ValuesRequest& request) {
    if (output_dtype == DType::float32) {
      if (!request.all) return device->gather_floats(output, request.indices);
      std::vector<float> values(static_cast<std::size_t>(numel));
      device->copy_to_host(values.data(), output, values.size() * sizeof(float));
      return values;
    }
    const std::vector<std::int64_t> values = int64_output();
    std::vector<float> picked;
    if (request.all)
      for (std::int64_t value : values) picked.push_back(static_cast<float>(value));
    else
      for (std::int64_t index : request.indices) {
        if (index < 0 || index >= numel) throw Error("index " + std::to_string(index) + " outside " + output.label);
        picked.push_back(static_cast<float>(values[static_cast<std::size_t>(index)]));
      }
    return picked;
  }

  // One launch of the candidate with interpret mode's counters on: the
  // counters by name into `reply` (none where the device has none), or why
  // they are not there (more requests than interpret mode keeps at once).
  // sample_blocks > 0 runs that many blocks of each launch, with the grids
  // sized for the GPU key `hardware` (`kernelgate model`).
  void counted_launch(RunReply& reply, std::uint64_t sample_blocks, const std::string& hardware = {}) {
    reply.counted = true;
#if defined(KG_INTERPRET)
    if (device->interpreted()) {
      interp::set_block_sample(sample_blocks);
      interp::set_kernel_resources(registered_kernel_resources());
      if (!hardware.empty()) {
        const HardwareSpec& spec = hardware_spec(hardware);
        interp::set_modelled_gpu(
            {spec.sm_count, [&spec](int threads, std::size_t shared_bytes, int registers) {
               return blocks_per_sm(spec, threads, shared_bytes, registers);
             }});
      }
      interp::start_counting();
      struct StopOnThrow {
        bool armed = true;
        ~StopOnThrow() {
          if (armed) interp::stop_counting();
          interp::set_block_sample(0);
          interp::set_modelled_gpu({});
        }
      } stop;
      candidate->launch(args);
      device->synchronize();
      stop.armed = false;
      const interp::Counters counted = interp::stop_counting();
      if (counted.incomplete)
        reply.counters_unavailable = "more than " + std::to_string(interp::kMaxLiveRequests) +
                                     " warp-level requests between two barriers of a block: not counted";
      else
        reply.counters = interp::named(counted);
      return;
    }
#endif
    candidate->launch(args);
  }

  Message values(const nlohmann::ordered_json& command) {
    require_open();
    const ValuesRequest request = read_values_request(JsonReader(command, "the values command"));
    Message reply;
    reply.values = output_values(request);
    return reply;
  }

  Message strict_comparison(const nlohmann::ordered_json& command) {
    require_open();
    const StrictRequest request = read_strict_request(JsonReader(command, "the strict command"));
    const StrictReference* reference = find_strict_reference(suite.id);
    if (!reference) throw Error("workload " + suite.id + " has no strict-FP32 reference in this build");
    // The reference lives only for this comparison: its device buffers are
    // poisoned and freed, and its host copy overwritten, before the
    // candidate runs again, so no later call finds the answer in memory.
    StrictReferenceRun strict(*reference, *device, args);
    std::vector<float> want = strict.output();
    std::vector<float> got(static_cast<std::size_t>(numel));
    device->copy_to_host(got.data(), output, got.size() * sizeof(float));
    const Tolerance tolerance{.atol = request.atol, .rtol = request.rtol, .rel_l2 = request.rel_l2};
    std::vector<float> values;
    for (std::int64_t index : request.indices) values.push_back(want.at(static_cast<std::size_t>(index)));
    const ErrorStats stats = compare_whole_output(got, want, tolerance);
    std::fill(want.begin(), want.end(), std::numeric_limits<float>::quiet_NaN());
    return strict_reply({.stats = stats, .summary = strict.summary()}, std::move(values));
  }

  // `count` samples of an empty kernel, each timed by the same Device::time
  // as a candidate's timed run (the flush, the held stream, the device's
  // timer around the launch).
  Message overhead(const nlohmann::ordered_json& command) {
    require_open();
    const CountRequest request = read_count_request(JsonReader(command, "the overhead command"));
    OverheadReply reply;
    for (int i = 0; i < request.count; ++i)
      reply.times_ms.push_back(device->time([&] { device->launch_empty_kernel(); }).ms);
    device->synchronize();
    return overhead_reply(reply);
  }

  Message warmup(const nlohmann::ordered_json& command) {
    require_open();
    load("A");
    const CountRequest request = read_count_request(JsonReader(command, "the warmup command"));
    for (int i = 0; i < request.count; ++i) candidate->launch(args);
    device->synchronize();
    return {};
  }
};

CandidateHost::CandidateHost(Device* device, bool pin_interpret_modes) : state_(std::make_unique<State>()) {
  state_->device = device;
  state_->pin_interpret_modes = pin_interpret_modes;
}

CandidateHost::~CandidateHost() = default;

Message CandidateHost::handle(const Message& command) {
  const std::string name = command.header.value("command", std::string());
  try {
    if (name == "open") return state_->open(command.header);
    if (name == "run") return state_->run(command.header);
    if (name == "values") return state_->values(command.header);
    if (name == "strict") return state_->strict_comparison(command.header);
    if (name == "warmup") return state_->warmup(command.header);
    if (name == "overhead") return state_->overhead(command.header);
    if (name == "close") {
      Message reply;
      reply.header["nonce"] = state_->nonce;
      return reply;
    }
    throw Error("unknown runner command '" + name + "'");
  } catch (const DeviceFault& e) {
    Message reply;
    reply.header["failed"] = std::string("device fault: ") + e.what();
    return reply;
  } catch (const std::exception& e) {
    // A candidate throwing (a failed launch, a bad argument) fails only itself.
    Message reply;
    reply.header["failed"] = std::string("exception: ") + e.what();
    return reply;
  }
}

}  // namespace kg::detail
