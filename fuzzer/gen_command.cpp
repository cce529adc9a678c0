#include "fuzzer/gen_command.h"

#include "fuzzer/python_script.h"

#include <fmt/format.h>

#include <ostream>

namespace fuzzer {

std::map<std::string, int> CountFeatures(const GenerationPolicy &policy, std::uint64_t seed,
                                         std::uint64_t count) {
  std::map<std::string, int> totals;
  for (const auto &[category, options] : policy.weights)
    for (const auto &[option, weight] : options)
      totals[category + ":" + option] += 0;
  for (std::uint64_t i = 0; i < count; ++i)
    for (const auto &[feature, times] : GenerateCase({seed, i, ""}, policy).features)
      totals[feature] += times;
  return totals;
}

int GenCommand(const GenOptions &options, std::ostream &out) {
  const GenerationPolicy policy =
      options.policy_file ? LoadPolicyFile(*options.policy_file) : GenerationPolicy::Default();
  if (options.print_policy) {
    out << policy.ToJson().dump(2) << "\n";
    return 0;
  }
  if (options.stats) {
    const auto totals = CountFeatures(policy, options.seed, options.count);
    out << fmt::format("{:<44} {:>8}  (over {} cases from seed {})\n", "feature", "count",
                       options.count, options.seed);
    for (const auto &[feature, times] : totals)
      out << fmt::format("{:<44} {:>8}\n", feature, times);
    return 0;
  }
  for (std::uint64_t i = 0; i < options.count; ++i) {
    const Case c = GenerateCase({options.seed, i, options.command_line}, policy).c;
    if (options.python)
      out << EmitPythonScript(c) << (i + 1 < options.count ? "\n# ----\n" : "");
    else
      out << CaseToJson(c).dump() << "\n";
  }
  return 0;
}

} // namespace fuzzer
