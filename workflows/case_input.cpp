#include "workflows/case_input.h"

#include "corpus/bug_key.h"
#include "corpus/finding_store.h"
#include "fuzzer/campaign/probe.h"
#include "support/errors.h"

#include <fmt/format.h>

namespace workflows {

namespace fs = std::filesystem;

CaseInput ReadCaseOrFinding(const fs::path &input) {
  if (!fs::is_directory(input))
    return {corpus::LoadCaseFile(input), "", std::nullopt};
  if (!fs::exists(input / "finding.json"))
    throw support::InputError(
        fmt::format("{} is a folder without finding.json: give a case file or a finding's folder "
                    "(CORPUS/findings/<id>)",
                    input.string()));
  const fs::path folder = fs::absolute(input).lexically_normal();
  const auto stored =
      corpus::FindingStore(folder.parent_path().parent_path()).Load(folder.filename().string());
  return {corpus::LoadCaseFile(stored.smallest / "case.json"),
          stored.signature,
          folder,
          corpus::ReleaseAnchors(stored.finding),
          stored.finding.kind,
          stored.id,
          stored.smallest,
          fuzzer::campaign::ProbedNeeds(stored.finding)};
}

} // namespace workflows
