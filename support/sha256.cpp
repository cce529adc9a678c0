#include "support/sha256.h"

#include <openssl/evp.h>

#include <fmt/format.h>

namespace support {

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i)
    hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

} // namespace support
