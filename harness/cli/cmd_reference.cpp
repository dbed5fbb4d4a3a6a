// kernelgate reference <workload>: generates the inputs and parameters and
// computes the float64 reference; --dump writes them as .npy with a manifest,
// so anyone can check them with numpy or torch (tests/golden/check_dump.py).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/npy.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {
namespace {

struct Options {
  WorkloadChoice choice;
  std::uint64_t seed = 0;
  std::string dump_dir;
  double max_gflop = 20;
};

void write_dump(const std::filesystem::path& dir, const Suite& suite, const Axes& axes,
                const Options& options, const Tensors& inputs, const HostTensor<double>& output) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw Error("cannot create dump folder " + dir.string() + ": " + error.message());
  nlohmann::ordered_json manifest;
  manifest["format"] = "kernelgate-reference-dump/1";
  manifest["workload"] = suite.id;
  manifest["identity"] = suite.identity;
  manifest["preset"] = options.choice.preset;
  manifest["axes"] = nlohmann::ordered_json::object();
  for (const auto& axis : suite.axes) manifest["axes"][axis.name] = axes.at(axis.name);
  manifest["seed"] = options.seed;
  manifest["input_seed"] = input_set_seed(options.seed, 0);
  manifest["tensors"] = nlohmann::ordered_json::array();
  for (const auto& spec : suite.tensors) {
    std::string file = spec.name + ".npy";
    nlohmann::ordered_json entry = {{"name", spec.name},
                                    {"role", std::string(to_string(spec.role))},
                                    {"file", file}};
    if (spec.role == TensorRole::output) {
      write_npy(dir / file, output.shape, output.data.data());
      entry["dtype"] = "float64";
      entry["shape"] = output.shape;
    } else {
      const auto& tensor = inputs.at(spec.name);
      write_npy(dir / file, tensor.shape, spec.dtype, tensor_bytes(tensor, spec.dtype).data());
      entry["dtype"] = to_string(spec.dtype);
      entry["shape"] = tensor.shape;
      const Distribution values = distribution(suite, spec, axes);
      if (values.normal)
        entry["normal"] = {{"mean", values.mean}, {"std", values.std}};
      else if (values.integer)
        entry["randint"] = {{"low", values.low}, {"high", values.high}};
      else
        entry["uniform"] = {{"low", values.low}, {"high", values.high}};
      // An input built by ops after its draw: the suite's words for them.
      const auto& init = suite.json["tensors"][&spec - suite.tensors.data()]["init"];
      if (init.contains("then")) {
        if (init.contains("draws")) entry["draws"] = init["draws"];
        entry["then"] = init["then"];
      }
    }
    manifest["tensors"].push_back(entry);
  }
  std::ofstream out(dir / "manifest.json");
  out << manifest.dump(2) << "\n";
  if (!out) throw Error("cannot write " + (dir / "manifest.json").string());
}

}  // namespace

Work add_reference_command(CLI::App& command, CommonOptions& common) {
  auto options = std::make_shared<Options>();
  add_workload_options(command, options->choice);
  add_seed_option(command, options->seed, "the run's seed whose input set A is dumped (default 0)");
  command.add_option("--dump", options->dump_dir,
                     "Write <tensor>.npy for every input, parameter and the output, plus manifest.json");
  command.add_option("--max-gflop", options->max_gflop,
                     "Refuse workloads above this many GFLOP (the reference is float64 on the CPU; default 20)");
  add_suites_option(command, common);
  return [options, &common] {
    Suite suite = find_suite(suites_dir_of(common), options->choice.workload);
    Axes axes = resolve_workload_axes(suite, options->choice);
    double gflop = suite.flops(axes) / 1e9;
    if (gflop > options->max_gflop) {
      char buffer[200];
      std::snprintf(buffer, sizeof buffer,
                    "%s at these axes is %.1f GFLOP, above --max-gflop %g: the float64 host "
                    "reference would take long; use smaller axes (e.g. --preset ci) or raise --max-gflop",
                    suite.id.c_str(), gflop, options->max_gflop);
      throw Error(buffer);
    }
    // A folder that cannot take the dump is found before the reference is computed.
    if (!options->dump_dir.empty()) ensure_writable_folder("--dump", options->dump_dir);
    auto start = std::chrono::steady_clock::now();
    Tensors inputs = generate_inputs(suite, axes, input_set_seed(options->seed, 0));
    HostTensor<double> output = reference_output(suite, axes, inputs);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    double sum = 0, sum_squares = 0, low = INFINITY, high = -INFINITY;
    for (double v : output.data) {
      sum += v;
      sum_squares += v * v;
      low = std::min(low, v);
      high = std::max(high, v);
    }
    std::printf("workload  %s\naxes      %s\nseed      %llu\n", suite.id.c_str(),
                format_axes(axes).c_str(), static_cast<unsigned long long>(options->seed));
    std::printf("output    %s %lld elements: min %.9g max %.9g mean %.9g l2 %.9g (%.3f s)\n",
                suite.output().name.c_str(), static_cast<long long>(output.numel()), low, high,
                sum / static_cast<double>(output.numel()), std::sqrt(sum_squares), seconds);
    if (!options->dump_dir.empty()) {
      write_dump(options->dump_dir, suite, axes, *options, inputs, output);
      std::printf("dumped    %s\n", options->dump_dir.c_str());
    }
    return 0;
  };
}

}  // namespace kg::cli
