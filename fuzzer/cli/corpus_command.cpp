#include "fuzzer/cli/corpus_command.h"

#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/reports.h"
#include "fuzzer/support/errors.h"
#include "fuzzer/support/version.h"

#include <fmt/format.h>

#include <ostream>

namespace fuzzer::cli {

int CorpusCommand(const CorpusOptions &options, std::ostream &out) {
  if (options.action == "merge") {
    if (options.into.empty())
      throw support::InputError("corpus merge needs --into DIR");
    corpus::FindingStore into(options.into);
    std::size_t added = 0;
    for (const auto &source : options.sources)
      added += into.MergeFrom(source);
    const auto findings = into.List();
    out << fmt::format("merged {} corpus(es) into {}: {} new hit(s), {} finding(s)\n",
                       options.sources.size(), options.into.string(), added, findings.size());
    return support::kExitNothingFound;
  }
  if (!std::filesystem::is_directory(options.corpus / "findings"))
    throw support::InputError(
        fmt::format("{} is not a corpus (no findings/ folder); pass the --corpus a campaign wrote",
                    options.corpus.string()));
  const corpus::FindingStore store(options.corpus);
  if (options.action == "show") {
    const auto finding = store.Load(options.id);
    nlohmann::json shown = finding.Summary();
    shown["finding"] = corpus::FindingToJson(finding.finding);
    out << shown.dump(2) << "\n";
    return support::kExitNothingFound;
  }
  const auto findings = store.List();
  if (options.action == "report") {
    if (options.report_dir.empty())
      throw support::InputError("corpus report needs --report DIR");
    campaign::ReportInput input{.stats = {},
                                .findings = findings,
                                .known_issues = corpus::ReadKnownIssues(options.known_issues),
                                .provenance = {{"tool_version", support::ToolVersion()},
                                               {"command_line", "corpus report"},
                                               {"corpus", options.corpus.string()}}};
    std::size_t fresh = 0;
    for (const auto &finding : findings) {
      campaign::FindingEvent event{.id = finding.id,
                                   .kind = std::string(corpus::KindName(finding.finding.kind)),
                                   .signature = finding.signature,
                                   .is_new = true};
      if (const auto *known = input.known_issues.Match(finding.signature))
        event.known_issue = known->id;
      fresh += event.Reportable();
      ++(event.Reportable() ? input.stats.new_by_kind : input.stats.known_by_kind)[event.kind];
      input.stats.signatures.emplace(finding.id, event);
    }
    campaign::WriteReports(options.report_dir, input);
    out << fmt::format("{} finding(s), {} not known; reports in {}\n", findings.size(), fresh,
                       options.report_dir.string());
    return fresh ? support::kExitFindings : support::kExitNothingFound;
  }
  if (options.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &finding : findings)
      list.push_back(finding.Summary());
    out << list.dump(2) << "\n";
    return support::kExitNothingFound;
  }
  out << fmt::format("{:<40} {:>5}  {:<20}  {}\n", "id", "hits", "last seen", "summary");
  for (const auto &finding : findings)
    out << fmt::format("{:<40} {:>5}  {:<20}  {}\n", finding.id, finding.HitCount(),
                       finding.LastSeen(), finding.finding.summary.substr(0, 100));
  out << fmt::format("{} finding(s) in {}\n", findings.size(), options.corpus.string());
  return support::kExitNothingFound;
}

} // namespace fuzzer::cli
