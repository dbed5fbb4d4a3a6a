// KG_INTERPRET_ORDER (or the order the process pinned) and KG_INTERPRET_THREADS.
#include <cstdlib>
#include <string>
#include <thread>

#include "kernelgate/error.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "pinned_setting.hpp"

namespace kg::interp {

namespace {

PinnedSetting<ThreadOrder> pinned_order;

}  // namespace

ThreadOrder thread_order_from_environment() {
  const char* text = std::getenv("KG_INTERPRET_ORDER");
  if (text == nullptr || *text == '\0') return ThreadOrder{};
  try {
    return parse_thread_order(text);
  } catch (const Error& e) {
    throw Error("KG_INTERPRET_ORDER: " + std::string(e.what()));
  }
}

void pin_thread_order(const ThreadOrder& order) { pinned_order.pin(order); }

ThreadOrder current_thread_order() { return pinned_order.current(thread_order_from_environment); }

ThreadOrder parse_thread_order(const std::string& value) {
  ThreadOrder order;
  if (value.empty() || value == "forward") return order;
  if (value == "reverse") {
    order.kind = ThreadOrder::Kind::reverse;
    return order;
  }
  if (value == "random") {
    order.kind = ThreadOrder::Kind::random;
    return order;
  }
  if (value.rfind("random:", 0) == 0) {
    const std::string seed = value.substr(7);
    char* end = nullptr;
    const unsigned long long parsed = std::strtoull(seed.c_str(), &end, 10);
    if (!seed.empty() && seed[0] != '-' && end != nullptr && *end == '\0') {
      order.kind = ThreadOrder::Kind::random;
      order.seed = parsed;
      return order;
    }
  }
  throw Error("'" + value + "' is not a thread order (forward, reverse, random or random:<seed>)");
}

std::string to_string(const ThreadOrder& order) {
  switch (order.kind) {
    case ThreadOrder::Kind::forward:
      return "forward";
    case ThreadOrder::Kind::reverse:
      return "reverse";
    case ThreadOrder::Kind::random:
      return "random:" + std::to_string(order.seed);
  }
  return "forward";
}

unsigned host_threads_from_environment() {
  if (const char* text = std::getenv("KG_INTERPRET_THREADS"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (end == text || *end != '\0' || value < 1 || value > 256)
      throw Error(std::string("KG_INTERPRET_THREADS='") + text +
                  "' is not a number of host threads from 1 to 256");
    return static_cast<unsigned>(value);
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1u : (hardware < 2u ? hardware : 2u);
}

}  // namespace kg::interp
