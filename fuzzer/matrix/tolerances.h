#pragma once

#include "fuzzer/matrix/compiler_matrix.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace fuzzer::matrix {

// What a TU computes, for its tolerance: flex_attention's CPU template, an accumulating loop, or
// anything else. Read from its code.
std::string_view OpFamilyOf(std::string_view source);

// Per dtype and op family, how far a rebuilt kernel's result may be from Inductor's recording:
// fuzzer/matrix/tolerances.txt, one `DTYPE FAMILY RTOL ATOL -- WHY` a line, compiled in.
class ToleranceTable {
public:
  // Throws support::InputError naming the line when an entry is malformed or gives no reason.
  static ToleranceTable Parse(std::string_view text, const std::string &origin);
  static ToleranceTable CheckedIn();
  static ToleranceTable Read(const std::filesystem::path &path);

  // {"float32": {"attention": [rtol, atol], ...}, ...}: what the worker's replay reads.
  nlohmann::json ToJson() const;
  const std::string &Origin() const { return origin_; }

private:
  std::map<std::string, std::map<std::string, std::pair<double, double>>> entries_;
  std::string origin_;
};

std::string_view CheckedInTolerances(); // tolerances.txt's text (tolerances_text.cpp)

} // namespace fuzzer::matrix
