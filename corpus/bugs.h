#pragma once

#include "corpus/finding_store.h"
#include "corpus/known_issues.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace corpus {

// Groups signatures into bugs: members with one bug key are one bug, and so are members that one
// case showed to be one cause (SameCauseInOneCase, recorded in a hit's same_bug_as). A union of
// sets: grouping never depends on the order members arrive in.
class BugGrouper {
public:
  void Add(const std::string &member, const std::string &key);
  void Join(const std::string &a, const std::string &b);
  bool Contains(const std::string &member) const { return parent_.contains(member); }
  std::string Root(const std::string &member) const;
  // Every bug's members, sorted, keyed by the bug's root member.
  std::map<std::string, std::vector<std::string>> Groups() const;
  const std::string &KeyOf(const std::string &member) const { return key_.at(member); }

private:
  mutable std::map<std::string, std::string> parent_;
  std::map<std::string, std::string> key_;          // member -> its key
  std::map<std::string, std::string> first_of_key_; // key -> the first member with it
};

// A bug's id: bug-<the first 16 hex digits of the SHA-256 of the smallest of its keys>.
std::string BugId(const std::vector<std::string> &keys);

// One bug of a corpus: the unit the corpus lists, reports and counts.
struct Bug {
  std::string id;
  std::string key;                    // the smallest of its members' keys
  std::vector<std::string> keys;      // every distinct key of its members, sorted
  std::vector<StoredFinding> members; // its signatures, most hits first
  std::set<std::string> detectors;    // worker, check, matrix, sanitizer
  std::set<std::string> hit_ids;      // cases that hit it, once each
  std::string first_seen, last_seen;
  // Set by JoinByKnownIssue: the known issue that names it, and the ids of the corpus's bugs it
  // holds (more than one when findings of one known issue were keyed apart).
  std::string known_issue;
  std::vector<std::string> joined;
  std::vector<std::string> Signatures() const;
  // The known issue that names it: `known_issue` when set, else by any of its signatures or by
  // any of its keys.
  const KnownIssue *Known(const KnownIssues &known) const;
  nlohmann::json Summary() const; // for `corpus list --json`, `corpus show` and summary.json
};

// A crash whose sanitizer rerun names memory errors is those errors: the crash leaves `findings`
// and is returned as the evidence each error's hit carries (a crash signature is the same for
// every heap corruption, so storing it as a bug of its own would join every such bug). The
// errors are appended. Without errors, or without a crash first, nothing changes but the append.
nlohmann::json FoldExplainedCrash(std::vector<Finding> &findings, std::vector<Finding> errors);

// The corpus's findings grouped into bugs, sorted by id.
std::vector<Bug> GroupIntoBugs(const std::vector<StoredFinding> &findings);

// The bugs of a campaign's report: those a known issue names (Bug::Known) joined into one bug
// per known issue, with every key and signature of them, its id that of its smallest key; the
// others as they are. One cause keyed apart (a key that misses what its forms share) is one row
// of the report; the stored findings and their keys are unchanged. Sorted by id.
std::vector<Bug> JoinByKnownIssue(std::vector<Bug> bugs, const KnownIssues &known);

} // namespace corpus
