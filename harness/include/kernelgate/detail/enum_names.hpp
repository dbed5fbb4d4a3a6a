#pragma once
// The names of an enum's values, written once as a table: the name of a
// value and the strict reading of a name (which lists every known name when
// the text is none of them) both come from it, so the two cannot drift apart.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "kernelgate/error.hpp"

namespace kg {

template <typename Enum, std::size_t N>
struct EnumNames {
  std::string_view what;  // the enum in messages: "outcome", "trust"
  std::array<std::pair<Enum, std::string_view>, N> names;

  // "unknown" for a value the table lacks (a cast of a bad integer).
  constexpr std::string_view name(Enum value) const {
    for (const auto& [entry, entry_name] : names)
      if (entry == value) return entry_name;
    return "unknown";
  }

  constexpr std::optional<Enum> find(std::string_view text) const {
    for (const auto& [entry, entry_name] : names)
      if (entry_name == text) return entry;
    return std::nullopt;
  }

  // "a, b, c": for a message that names what is accepted.
  std::string known() const {
    std::string list;
    for (const auto& [entry, entry_name] : names) list += (list.empty() ? "" : ", ") + std::string(entry_name);
    return list;
  }

  // Throws kg::Error: "unknown <what> '<text>' (known: ...)".
  Enum parse(std::string_view text) const {
    if (const auto value = find(text)) return *value;
    throw Error("unknown " + std::string(what) + " '" + std::string(text) + "' (known: " + known() + ")");
  }
};

}  // namespace kg
