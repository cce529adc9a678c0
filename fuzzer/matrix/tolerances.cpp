#include "fuzzer/matrix/tolerances.h"

#include "support/errors.h"
#include "support/reasoned_table.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace fuzzer::matrix {
namespace {

constexpr std::array<std::string_view, 4> kDtypes = {"float64", "float32", "float16", "bfloat16"};
constexpr std::array<std::string_view, 3> kFamilies = {"pointwise", "reduction", "attention"};

template <std::size_t N>
bool OneOf(const std::array<std::string_view, N> &names, const std::string &name) {
  for (const auto known : names)
    if (known == name)
      return true;
  return false;
}

// A tolerance: a finite number from 0 to 1, written whole ("1e-5", not "1e-5x").
bool ParseTolerance(const std::string &text, double &value) {
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception &) {
    return false;
  }
  return used == text.size() && std::isfinite(value) && value >= 0 && value <= 1;
}

} // namespace

std::string_view OpFamilyOf(std::string_view source) {
  // The flex_attention CPU template's helpers (cpp_flex_attention_template.py).
  if (source.find("micro_gemm") != std::string_view::npos &&
      source.find("exp_reduce_sum_fusion") != std::string_view::npos)
    return "attention";
  // Inductor's reduction loops accumulate into tmp_acc<N> (or a Welford).
  if (source.find("tmp_acc") != std::string_view::npos ||
      source.find("Welford") != std::string_view::npos)
    return "reduction";
  return "pointwise";
}

ToleranceTable ToleranceTable::Parse(std::string_view text, const std::string &origin) {
  ToleranceTable table;
  table.origin_ = origin;
  for (const auto &line :
       support::ReadReasonedTable(text, origin, 4, "DTYPE FAMILY RTOL ATOL -- WHY")) {
    const std::string &dtype = line.fields[0], &family = line.fields[1];
    double rtol = 0, atol = 0;
    if (!OneOf(kDtypes, dtype))
      throw support::InputError(
          fmt::format("{} line {}: dtype '{}' is not float64, float32, float16 or bfloat16", origin,
                      line.number, dtype));
    if (!OneOf(kFamilies, family))
      throw support::InputError(
          fmt::format("{} line {}: family '{}' is not pointwise, reduction or attention", origin,
                      line.number, family));
    if (!ParseTolerance(line.fields[2], rtol) || !ParseTolerance(line.fields[3], atol))
      throw support::InputError(
          fmt::format("{} line {}: RTOL and ATOL are numbers from 0 to 1 (got '{}' and '{}')",
                      origin, line.number, line.fields[2], line.fields[3]));
    if (!table.entries_[dtype].emplace(family, std::make_pair(rtol, atol)).second)
      throw support::InputError(
          fmt::format("{} line {}: {} {} is given twice", origin, line.number, dtype, family));
  }
  return table;
}

ToleranceTable ToleranceTable::CheckedIn() {
  return Parse(CheckedInTolerances(), "the checked-in tolerances");
}

ToleranceTable ToleranceTable::Read(const std::filesystem::path &path) {
  return Parse(support::ReadTextFile(path, "tolerance table", std::size_t{1} << 20), path.string());
}

nlohmann::json ToleranceTable::ToJson() const {
  nlohmann::json table = nlohmann::json::object();
  for (const auto &[dtype, families] : entries_)
    for (const auto &[family, tolerance] : families)
      table[dtype][family] = {tolerance.first, tolerance.second};
  return table;
}

} // namespace fuzzer::matrix
