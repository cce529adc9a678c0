#pragma once

#include "corpus/case.h"
#include "corpus/delivery.h"
#include "corpus/finding.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// A corpus of findings, one folder per signature:
//
//   <root>/findings/<kind>-<signature id>/
//     finding.json            the finding as first seen, with its signature
//     hits/<hit id>.json      one file per case that hit it: when, which seed, which versions
//     records/<hit id>/       the run record of the smallest case seen so far (case.json,
//                             repro.py, result.json, commands.json, sources/, ...)
//     baseline-<torch>.json   its label on another torch release ("regression since 2.14.1")
//     delivery.json, reduced/ what `fuzz --reduce` made of its bug (corpus/delivery.h)
//
// Every write is a new file under a temporary name renamed into place, and a folder is made
// whole in <root>/.staging and renamed in. Hits are files, never counters, so several jobs or
// shards writing one corpus (or a merge) never lose a hit and never read a half-written file.
// A hit is keyed by its case (seed and index, or the case's hash): the same case found twice
// is one hit.
// Version 2 added a hit's same_bug_as and evidence; version 1 hits are read as they are. The
// corpus's own corpus.json names the signature version its folders were written by.
inline constexpr int kFindingStoreFormatVersion = 2;

struct Hit {
  std::string id;        // file-name safe; see HitId
  std::string case_name; // the case that hit it
  std::optional<std::uint64_t> seed, index;
  std::string time;            // UTC, ISO 8601
  std::uint64_t case_size = 0; // bytes of the case's JSON: the smallest case is kept
  nlohmann::json provenance = nlohmann::json::object(); // tool, torch, compilers, command line
  // Other findings (stored ids) this case showed to be the same cause (corpus/bug_key.h), and
  // what other detectors saw of it in this case (a crash its sanitizer rerun explains).
  std::vector<std::string> same_bug_as;
  nlohmann::json evidence = nlohmann::json::array();
  bool operator==(const Hit &) const = default;
};

// The id of a case's hit: s<seed>-i<index> for a generated case, else a hash of the case.
std::string HitId(const Case &c);
Hit MakeHit(const Case &c, const nlohmann::json &provenance, const std::string &time);
std::string UtcNow();

// A finding's id in a corpus, and its folder's name: <kind>-<signature id>.
std::string StoredFindingId(const Finding &finding);

struct StoredFinding {
  std::string id; // the folder name: <kind>-<signature id>
  std::filesystem::path folder;
  Finding finding;
  std::string signature;
  // BugKey(finding) under this build's kBugKeyVersion, computed once when the finding is read:
  // every grouping and report of one run uses it, and an older corpus is keyed again on open.
  std::string key;
  std::vector<Hit> hits;          // sorted by time, then id
  std::filesystem::path smallest; // records/<hit id> of the smallest stored case
  // baseline-<torch>.json files (`fuzz --baseline-torch`): the finding on another torch release.
  std::vector<nlohmann::json> baselines;
  // delivery.json (`fuzz --reduce`): its reduction, standalone run and releases; a damaged
  // file reads as none, and the next campaign delivers again.
  std::optional<Delivery> delivery;
  std::size_t HitCount() const { return hits.size(); }
  std::string FirstSeen() const;
  std::string LastSeen() const;
  std::vector<std::uint64_t> Seeds() const;
  nlohmann::json Summary() const; // the metadata, for people and reports
};

enum class StoreOutcome { kNew, kKnown };

// What opening (or `corpus migrate`) did to a corpus an older version wrote.
struct MigrationReport {
  int from_signature_version = 0; // 0: the corpus was already current
  std::size_t folders = 0;        // finding folders read
  std::size_t resigned = 0;       // finding.json rewritten with the signature its essence gives
  std::size_t moved = 0;          // folders whose signature now names another folder, merged in
  std::size_t hits = 0;           // hits in the corpus afterwards
};

// Writes a hit's run record into the folder it is given (which exists and is empty).
using RecordWriter = std::function<void(const std::filesystem::path &record_dir)>;

class FindingStore {
public:
  // Opens (and makes) the corpus at `root`. A corpus an older signature version wrote is
  // migrated first (Migrate), so that no caller ever sees a stale signature.
  explicit FindingStore(std::filesystem::path root);

  // Re-signs every finding with this build's signature: a folder whose signature changed is
  // merged into the folder its signature names now, keeping every hit, record and baseline.
  // Idempotent; corpus.json records the version afterwards.
  MigrationReport Migrate();
  const MigrationReport &migration() const { return migration_; }

  const std::filesystem::path &root() const { return root_; }

  // Records one hit of `finding`. The run record is written (by `write_record`) only when the
  // hit's case is smaller than every stored one, so a finding keeps its smallest case.
  StoreOutcome Record(const Finding &finding, const Hit &hit, const RecordWriter &write_record);

  // Every stored finding, validated, sorted by id. A folder that cannot be read is reported
  // with a FormatError naming it.
  std::vector<StoredFinding> List() const;
  // One finding by its id or an unambiguous prefix of it.
  StoredFinding Load(const std::string &id_or_prefix) const;

  // Copies in every finding, hit and smallest record of another corpus that this one lacks.
  // Returns how many hits were added. Merging twice adds nothing the second time.
  std::size_t MergeFrom(const std::filesystem::path &other_root);
  // The same for findings another store listed (so that a merge reads every source before it
  // writes anything).
  std::size_t MergeFindings(const std::vector<StoredFinding> &listed);

private:
  std::filesystem::path FindingsDir() const { return root_ / "findings"; }
  std::filesystem::path MetadataFile() const { return root_ / "corpus.json"; }
  // Every hit, record and baseline of `source` this corpus lacks; how many hits were added.
  std::size_t Absorb(const StoredFinding &source);
  std::filesystem::path Staging() const;
  StoredFinding ReadFinding(const std::filesystem::path &folder) const;
  void KeepSmallest(const std::filesystem::path &folder, const Hit &hit,
                    const RecordWriter &write_record);

  std::filesystem::path root_;
  MigrationReport migration_;
};

} // namespace corpus
