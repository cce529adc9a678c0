#pragma once

#include <string>
#include <string_view>

namespace support {

// Lower-case hex SHA-256 of the bytes (OpenSSL's).
std::string Sha256Hex(std::string_view bytes);

} // namespace support
