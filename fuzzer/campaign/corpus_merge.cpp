#include "fuzzer/campaign/corpus_merge.h"

#include "corpus/finding_store.h"
#include "corpus/surface_table.h"
#include "fuzzer/campaign/journal.h"
#include "fuzzer/campaign/seed_pool.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

namespace fuzzer::campaign {
namespace {

namespace fs = std::filesystem;

struct Journals {
  std::map<std::string, JournalHeader> headers; // file name -> header
};

Journals ReadJournals(const fs::path &corpus) {
  Journals journals;
  std::error_code error;
  for (const auto &file : fs::directory_iterator(corpus / "campaigns", error))
    if (file.path().extension() == ".jsonl")
      if (const auto header = ReadJournalHeader(file.path()))
        journals.headers[file.path().filename().string()] = *header;
  return journals;
}

// Where one seed's campaign was first seen, to name both sides of a disagreement.
struct SeedCampaign {
  JournalHeader header;
  fs::path corpus;
};

std::string Describe(const JournalHeader &header) {
  return fmt::format("shard {}/{}, policy {}, generator {}", header.shard.index, header.shard.count,
                     header.policy_sha256.substr(0, 12), header.generator_version);
}

// A seed's case i is one case only under one policy, generator and shard count.
void CheckSeedsAgree(const std::vector<std::pair<fs::path, Journals>> &corpora) {
  std::map<std::uint64_t, SeedCampaign> seeds;
  for (const auto &[corpus, journals] : corpora)
    for (const auto &[name, header] : journals.headers) {
      const auto [seen, inserted] = seeds.emplace(header.seed, SeedCampaign{header, corpus});
      if (inserted)
        continue;
      const auto &first = seen->second.header;
      if (first.policy_sha256 != header.policy_sha256 ||
          first.generator_version != header.generator_version ||
          first.shard.count != header.shard.count)
        throw support::InputError(fmt::format(
            "corpus merge: {} and {} ran seed {} differently ({} against {}): shards of one "
            "campaign share --seed, --policy, the shard count and the tool, and each night "
            "needs a seed of its own; nothing was merged",
            seen->second.corpus.string(), corpus.string(), header.seed, Describe(first),
            Describe(header)));
    }
}

// A source read whole before anything is written.
struct ReadSource {
  fs::path root;
  std::vector<corpus::StoredFinding> findings;
  QueueFiles queue;
  Journals journals;
  std::optional<corpus::SurfaceUniverse> surface_universe;
};

} // namespace

MergeOutcome MergeCorpora(const std::vector<fs::path> &sources, const fs::path &into) {
  if (into.empty())
    throw support::InputError("corpus merge needs --into DIR (the merged corpus; made if missing)");
  if (sources.empty())
    throw support::InputError("corpus merge needs the corpora to merge: corpus merge SRC... --into "
                              "DIR");
  std::error_code error;
  for (const auto &source : sources) {
    if (fs::exists(into) && fs::exists(source) && fs::equivalent(source, into, error))
      throw support::InputError(fmt::format(
          "corpus merge: {} is also --into; merge the other corpora into it; nothing was merged",
          source.string()));
    if (!fs::is_directory(source / "findings"))
      throw support::InputError(fmt::format(
          "corpus merge: {} is not a corpus (it has no findings/ folder); give the --corpus of a "
          "campaign; nothing was merged",
          source.string()));
  }
  std::vector<std::pair<fs::path, Journals>> journals;
  if (fs::is_directory(into))
    journals.emplace_back(into, ReadJournals(into));
  for (const auto &source : sources)
    journals.emplace_back(source, ReadJournals(source));
  CheckSeedsAgree(journals);

  MergeOutcome outcome;
  std::vector<ReadSource> read;
  for (const auto &source : sources) {
    const corpus::FindingStore store(source); // migrates an older corpus in place
    if (const auto &migrated = store.migration(); migrated.from_signature_version > 0)
      outcome.notes.push_back(
          fmt::format("migrated {} from signature version {} to {} first ({} re-signed, {} merged)",
                      source.string(), migrated.from_signature_version, corpus::kSignatureVersion,
                      migrated.resigned, migrated.moved));
    read.push_back({.root = source,
                    .findings = store.List(),
                    .queue = ReadQueueFiles(source / "queue"),
                    .journals = ReadJournals(source),
                    .surface_universe = corpus::ReadSurfaceUniverse(source)});
  }

  corpus::FindingStore merged(into);
  std::set<std::string> journal_names;
  for (const auto &source : read) {
    outcome.hits_added += merged.MergeFindings(source.findings);
    outcome.queue_added += MergeQueueInto(source.queue, into / "queue");
    // The shards ran one release: the first universe stands for all (the op-surface table).
    if (source.surface_universe && !fs::exists(corpus::SurfaceUniversePath(into)))
      corpus::WriteSurfaceUniverse(into, *source.surface_universe);
    for (const auto &[name, header] : source.journals.headers) {
      MergeJournalInto(source.root / "campaigns" / name, into / "campaigns" / name);
      journal_names.insert(name);
    }
  }
  outcome.journals = journal_names.size();
  outcome.findings = merged.List().size();
  return outcome;
}

} // namespace fuzzer::campaign
