#include "workflows/gen.h"

#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/repro_script.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <ostream>

namespace workflows {

int Generate(const GenOptions &options, std::ostream &out) {
  const fuzzer::generate::GenerationPolicy policy =
      options.policy_file ? fuzzer::generate::LoadPolicyFile(*options.policy_file)
                          : fuzzer::generate::GenerationPolicy::Default();
  if (options.print_policy) {
    out << policy.ToJson().dump(2) << "\n";
    return 0;
  }
  if (options.stats) {
    const auto totals = fuzzer::generate::CountFeatures(policy, options.seed, options.count);
    out << fmt::format("{:<44} {:>8}  (over {} cases from seed {})\n", "feature", "count",
                       options.count, options.seed);
    for (const auto &[feature, times] : totals)
      out << fmt::format("{:<44} {:>8}\n", feature, times);
    return 0;
  }
  if (!options.from.empty() && !options.requests)
    throw support::InputError("--from names case files to write as run requests: add --requests");
  if (options.requests && !options.from.empty()) {
    for (const auto &file : options.from)
      out << fuzzer::worker::RunRequest(corpus::LoadCaseFile(file)).dump() << "\n";
    return 0;
  }
  for (std::uint64_t i = 0; i < options.count; ++i) {
    const corpus::Case c =
        fuzzer::generate::GenerateCase({options.seed, i, options.command_line}, policy).c;
    if (options.python)
      out << fuzzer::worker::EmitPythonScript(c) << (i + 1 < options.count ? "\n# ----\n" : "");
    else if (options.requests)
      out << fuzzer::worker::RunRequest(c).dump() << "\n";
    else
      out << corpus::CaseToJson(c).dump() << "\n";
  }
  return 0;
}

} // namespace workflows
