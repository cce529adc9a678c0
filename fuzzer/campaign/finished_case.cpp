#include "fuzzer/campaign/finished_case.h"

#include "corpus/bug_key.h"
#include "corpus/run_record.h"
#include "fuzzer/worker/repro_script.h"
#include "support/text_file.h"
#include "support/version.h"

#include <system_error>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

void WriteRecord(const fs::path &dir, const corpus::Case &c, const worker::CaseOutcome &outcome,
                 const fs::path &case_dir, const json &provenance) {
  json result = outcome.result;
  corpus::CopyRecordings(result, case_dir, dir);
  corpus::WriteRunRecord(dir, c, {outcome.status, outcome.finding, result}, provenance);
  support::WriteFileAtomically(dir / "repro.py", worker::EmitPythonScript(c));
}

} // namespace

StoredCase StoreFinishedCase(const CaseInFlight &ran, const CampaignOptions &options,
                             const std::string &torch_version, corpus::FindingStore &store) {
  const auto &faults = options.generate.fault_injection;
  if (const auto fault = faults.find(ran.index);
      fault != faults.end() && fault->second == "disk-full")
    throw fs::filesystem_error("cannot write the case's results", options.corpus,
                               std::make_error_code(std::errc::no_space_on_device));
  const worker::CaseOutcome &outcome = ran.outcome;
  JournalEntry entry{.index = ran.index,
                     .status = std::string(outcome.Status()),
                     .findings = json::array(),
                     .seconds = ran.seconds,
                     .new_features = ran.new_features};
  if (ran.c.provenance.value("origin", "") == "mutation")
    for (const char *field : {"origin", "parent", "donor", "mutations"})
      if (ran.c.provenance.contains(field))
        entry.origin[field] = ran.c.provenance[field];
  // The case's findings, then the one its crash hid (the rerun's case and files).
  struct ToStore {
    const corpus::Finding &finding;
    const corpus::Case &c;
    const worker::CaseOutcome &outcome;
    const fs::path &case_dir;
    const RevealedRun *revealed = nullptr;
  };
  std::vector<ToStore> stored_here;
  for (const corpus::Finding &finding : ran.findings)
    stored_here.push_back({finding, ran.c, outcome, ran.case_dir});
  if (ran.revealed && ran.revealed->outcome.finding)
    stored_here.push_back({*ran.revealed->outcome.finding, ran.revealed->c, ran.revealed->outcome,
                           ran.revealed->case_dir, &*ran.revealed});
  std::vector<std::string> ids;
  for (const auto &item : stored_here)
    ids.push_back(corpus::StoredFindingId(item.finding));
  std::vector<FindingEvent> events;
  std::vector<std::vector<std::string>> joined(stored_here.size());
  for (std::size_t i = 0; i < stored_here.size(); ++i) {
    const auto &[finding, c, run, case_dir, revealed] = stored_here[i];
    const bool with_matrix = ran.matrix && !revealed;
    json compilers = json::array();
    for (const auto &build : run.result.value("builds", json::array()))
      compilers.push_back(build.value("compiler", json::object()).value("version", ""));
    if (with_matrix)
      for (const auto &compiler : options.matrix.compilers)
        compilers.push_back(compiler.version);
    json provenance = {{"tool_version", support::ToolVersion()},
                       {"torch_version", torch_version},
                       {"command_line", options.command_line},
                       {"compilers", compilers},
                       {"seed", options.seed},
                       {"index", ran.index}};
    if (revealed)
      provenance["revealed_by"] = {{"finding", revealed->hidden_by},
                                   {"setting_put_back", revealed->setting},
                                   {"case", ran.c.name}};
    corpus::Hit hit = corpus::MakeHit(c, provenance, corpus::UtcNow());
    if (!revealed) // the hidden failure is a bug of its own: no join
      for (std::size_t j = 0; j < ran.findings.size(); ++j)
        if (j != i && ids[j] != ids[i] && corpus::SameCauseInOneCase(finding, ran.findings[j]))
          hit.same_bug_as.push_back(ids[j]);
    if (finding.kind == corpus::FindingKind::kMemoryError)
      hit.evidence = ran.evidence;
    joined[i] = hit.same_bug_as;
    const auto stored = store.Record(finding, hit, [&](const fs::path &record_dir) {
      WriteRecord(record_dir, c, run, case_dir, provenance);
      if (with_matrix)
        corpus::WriteMatrixRecord(record_dir / "matrix.json", *ran.matrix);
    });
    FindingEvent event{.id = ids[i],
                       .kind = finding.kind,
                       .signature = corpus::Signature(finding),
                       .key = corpus::BugKey(finding),
                       .is_new = stored == corpus::StoreOutcome::kNew};
    if (const auto *known = options.known_issues.Match(event.signature, event.key))
      event.known_issue = known->id;
    json line = {{"id", event.id},
                 {"kind", corpus::KindName(event.kind)},
                 {"signature", event.signature},
                 {"key", event.key},
                 {"new", event.is_new},
                 {"known_issue", event.known_issue}};
    if (revealed)
      line["revealed_by"] = provenance["revealed_by"];
    entry.findings.push_back(std::move(line));
    events.push_back(event);
  }
  return {.entry = std::move(entry), .events = std::move(events), .joined = std::move(joined)};
}

void CountStoredCase(const CaseInFlight &ran, const StoredCase &stored, std::uint64_t seed,
                     CampaignStats &stats) {
  const auto &[entry, events, joined] = stored;
  ++stats.cases;
  stats.mutated_cases += ran.c.provenance.value("origin", "") == "mutation";
  const StageCounts &counts = ran.counts;
  stats.sanitized_reruns += counts.sanitized_reruns;
  stats.probe_reruns += counts.probe_reruns;
  stats.probe_reruns_spared += counts.probe_reruns_spared;
  stats.revealed_by_probe += counts.revealed_by_probe;
  stats.matrix_cases += counts.matrix_cases;
  stats.matrix_builds += counts.matrix_builds;
  stats.build_cache_hits += counts.build_cache_hits;
  stats.runtime_replays += counts.runtime_replays;
  ++stats.by_status[entry.status];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const FindingEvent &event = events[i];
    ++(event.Reportable() ? stats.new_by_kind
                          : stats.known_by_kind)[std::string(corpus::KindName(event.kind))];
    auto [it, inserted] = stats.signatures.emplace(event.id, event);
    if (!inserted)
      it->second.is_new = it->second.is_new || event.is_new;
    stats.grouper.Add(event.id, event.key);
    for (const auto &other : joined[i])
      stats.grouper.Join(event.id, other);
    if (!event.known_issue.empty())
      stats.known_issue_of.emplace(event.id, event.known_issue);
    stats.hits_of[event.id].push_back({{"seed", seed}, {"index", ran.index}, {"case", ran.c.name}});
    for (const auto &seen : ran.evidence)
      if (event.kind == corpus::FindingKind::kMemoryError)
        stats.evidence_of[event.id].insert(seen.value("detector", ""));
  }
}

} // namespace fuzzer::campaign
