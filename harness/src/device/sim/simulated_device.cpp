// The `sim:<key>` device specs and their script (simulated_device.hpp).
#include "simulated_device.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"

namespace kg::detail {
namespace {

constexpr std::string_view kPrefix = "sim:";

std::string card_list() {
  std::string list;
  for (const std::string& key : interp::sim::card_keys()) list += (list.empty() ? "sim:" : ", sim:") + key;
  return list;
}

// The whole text as an integer in [low, high], or an error naming `what`.
long long whole_number(std::string_view text, long long low, long long high, const std::string& what) {
  long long value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || value < low || value > high)
    throw Error(what + ": expected a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
                ", got '" + std::string(text) + "'");
  return value;
}

int compute_mode_value(std::string_view name, const std::string& what) {
  if (name == "default") return cudaComputeModeDefault;
  if (name == "exclusive_process") return cudaComputeModeExclusiveProcess;
  if (name == "prohibited") return cudaComputeModeProhibited;
  throw Error(what + ": expected default, exclusive_process or prohibited, got '" + std::string(name) + "'");
}

// "0.2:990" -> "200:990": the share per thousand and the clock.
std::string throttle_option(std::string_view text, const std::string& what) {
  const std::size_t colon = text.find(':');
  double share = -1;
  if (colon != std::string_view::npos) {
    const std::string_view fraction = text.substr(0, colon);
    const auto [end, status] = std::from_chars(fraction.data(), fraction.data() + fraction.size(), share);
    if (status != std::errc() || end != fraction.data() + fraction.size()) share = -1;
  }
  if (!(share >= 0 && share <= 1))
    throw Error(what + ": expected FRACTION:MHZ with FRACTION from 0 to 1, got '" + std::string(text) + "'");
  const long long mhz = whole_number(text.substr(colon + 1), 1, 10000, what + " (the MHZ)");
  return std::to_string(static_cast<int>(share * 1000 + 0.5)) + ":" + std::to_string(mhz);
}

// Applies one option of a spec ("clock=1410") to `script`.
void apply_option(std::string_view option, interp::sim::Script& script, const std::string& spec) {
  const std::size_t equals = option.find('=');
  const std::string name(option.substr(0, equals));
  const std::string_view value = equals == std::string_view::npos ? std::string_view() : option.substr(equals + 1);
  const std::string what = "device '" + spec + "', option " + name;
  if (name == "clock") {
    script.sm_clock_mhz = static_cast<int>(whole_number(value, 1, 10000, what));
  } else if (name == "throttle") {
    const std::size_t colon = value.find(':');
    if (colon == std::string_view::npos) throw Error(what + ": expected PERMILLE:MHZ");
    script.throttle_permille = static_cast<int>(whole_number(value.substr(0, colon), 0, 1000, what));
    script.throttle_mhz = static_cast<int>(whole_number(value.substr(colon + 1), 1, 10000, what));
  } else if (name == "mode") {
    script.compute_mode = static_cast<int>(whole_number(value, 0, 3, what));
  } else if (name == "fault") {
    script.fault_at_kernel = whole_number(value, 1, 1LL << 40, what);
  } else if (name == "lock") {
    script.lock_file = std::string(value);
    if (script.lock_file.empty() || script.lock_file.front() != '/') throw Error(what + ": expected an absolute path");
  } else {
    throw Error(what + ": unknown (known: clock, throttle, mode, fault, lock)");
  }
}

}  // namespace

std::string scripted_simulated_gpu(const std::string& spec, const std::function<const char*(const char*)>& getenv) {
  auto read = [&](const char* name) -> std::string {
    const char* value = getenv ? getenv(name) : std::getenv(name);
    return value ? value : "";
  };
  std::string scripted = spec;
  if (const std::string clock = read("KERNELGATE_SIM_SM_CLOCK_MHZ"); !clock.empty())
    scripted += ";clock=" + std::to_string(whole_number(clock, 1, 10000, "KERNELGATE_SIM_SM_CLOCK_MHZ"));
  if (const std::string throttle = read("KERNELGATE_SIM_THROTTLE"); !throttle.empty())
    scripted += ";throttle=" + throttle_option(throttle, "KERNELGATE_SIM_THROTTLE");
  if (const std::string mode = read("KERNELGATE_SIM_COMPUTE_MODE"); !mode.empty())
    scripted += ";mode=" + std::to_string(compute_mode_value(mode, "KERNELGATE_SIM_COMPUTE_MODE"));
  if (const std::string fault = read("KERNELGATE_SIM_FAULT_AT_LAUNCH"); !fault.empty())
    scripted += ";fault=" + std::to_string(whole_number(fault, 1, 1LL << 40, "KERNELGATE_SIM_FAULT_AT_LAUNCH"));
  // The card of an exclusive-process run is the machine's, as a GPU is: its
  // lock is a file named for the card in the parent's temporary folder (a
  // child's folder is its own), which the children are told.
  const std::string folder = read("TMPDIR");
  const std::string key = spec.substr(kPrefix.size(), spec.find(';') - kPrefix.size());
  scripted += ";lock=" + (folder.starts_with('/') ? folder : std::string("/tmp")) + "/kernelgate-simulated-" + key +
              ".lock";
  return scripted;
}

void open_simulated_gpu(const std::string& spec) {
  if (!is_simulated_device(spec)) throw Error("device '" + spec + "' is not a simulated GPU");
  const std::string_view rest = std::string_view(spec).substr(kPrefix.size());
  const std::size_t semicolon = rest.find(';');
  const std::string key(rest.substr(0, semicolon));
  const interp::sim::Card* card = interp::sim::find_card(key);
  if (card == nullptr) throw Error("unknown simulated GPU '" + key + "' (known: " + card_list() + ")");
  interp::sim::Script script;
  std::string_view options = semicolon == std::string_view::npos ? std::string_view() : rest.substr(semicolon + 1);
  while (!options.empty()) {
    const std::size_t next = options.find(';');
    apply_option(options.substr(0, next), script, spec);
    options = next == std::string_view::npos ? std::string_view() : options.substr(next + 1);
  }
  interp::sim::open(*card, script);
}

}  // namespace kg::detail
