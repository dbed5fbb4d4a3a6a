#pragma once
// SHA-256 through OpenSSL's EVP interface: suite identities and input keys.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kg {

std::array<std::uint8_t, 32> sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

}  // namespace kg
