#include "corpus/bugs.h"

#include "corpus/bug_key.h"

#include <algorithm>

namespace corpus {

using nlohmann::json;

void BugGrouper::Add(const std::string &member, const std::string &key) {
  if (parent_.contains(member))
    return;
  parent_[member] = member;
  key_[member] = key;
  const auto [first, inserted] = first_of_key_.emplace(key, member);
  if (!inserted)
    Join(first->second, member);
}

std::string BugGrouper::Root(const std::string &member) const {
  std::string root = member;
  while (parent_.at(root) != root)
    root = parent_.at(root);
  for (std::string at = member; at != root;) { // path compression
    std::string next = parent_.at(at);
    parent_[at] = root;
    at = next;
  }
  return root;
}

void BugGrouper::Join(const std::string &a, const std::string &b) {
  if (!parent_.contains(a) || !parent_.contains(b))
    return;
  const std::string ra = Root(a), rb = Root(b);
  if (ra != rb) // the smaller id is the root: the same groups whatever the order of joins
    parent_[std::max(ra, rb)] = std::min(ra, rb);
}

std::map<std::string, std::vector<std::string>> BugGrouper::Groups() const {
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto &[member, parent] : parent_)
    groups[Root(member)].push_back(member);
  return groups;
}

std::string BugId(const std::vector<std::string> &keys) {
  return "bug-" + SignatureId(keys.empty() ? "" : *std::min_element(keys.begin(), keys.end()));
}

std::vector<std::string> Bug::Signatures() const {
  std::vector<std::string> signatures;
  for (const auto &member : members)
    signatures.push_back(member.signature);
  return signatures;
}

const KnownIssue *Bug::Known(const KnownIssues &known) const {
  if (!known_issue.empty())
    for (const auto &issue : known.issues)
      if (issue.id == known_issue)
        return &issue;
  for (const auto &member : members)
    if (const auto *issue = known.Match(member.signature, member.key))
      return issue;
  for (const auto &each : keys)
    if (const auto *issue = known.Match(each))
      return issue;
  return nullptr;
}

json Bug::Summary() const {
  json signatures = json::array();
  for (const auto &member : members)
    signatures.push_back({{"id", member.id},
                          {"signature", member.signature},
                          {"detector", DetectorOf(member.finding.kind)},
                          {"hit_count", member.HitCount()},
                          {"first_seen", member.FirstSeen()},
                          {"last_seen", member.LastSeen()}});
  const StoredFinding &lead = members.front();
  return {{"id", id},
          {"key", key},
          {"keys", keys},
          {"key_version", kBugKeyVersion},
          {"kind", KindName(lead.finding.kind)},
          {"summary", lead.finding.summary},
          {"hit_count", hit_ids.size()},
          {"first_seen", first_seen},
          {"last_seen", last_seen},
          {"detectors", detectors},
          {"signatures", signatures},
          {"repro", lead.smallest.empty() ? "" : (lead.smallest / "repro.py").string()}};
}

json FoldExplainedCrash(std::vector<Finding> &findings, std::vector<Finding> errors) {
  json evidence = json::array();
  if (!errors.empty() && !findings.empty() && findings.front().kind == FindingKind::kCrash) {
    evidence.push_back({{"detector", DetectorOf(FindingKind::kCrash)},
                        {"kind", KindName(FindingKind::kCrash)},
                        {"signature", Signature(findings.front())},
                        {"summary", findings.front().summary}});
    findings.erase(findings.begin());
  }
  for (auto &error : errors)
    findings.push_back(std::move(error));
  return evidence;
}

std::vector<Bug> GroupIntoBugs(const std::vector<StoredFinding> &findings) {
  BugGrouper grouper;
  std::map<std::string, const StoredFinding *> by_id;
  for (const auto &finding : findings) {
    grouper.Add(finding.id, finding.key);
    by_id[finding.id] = &finding;
  }
  std::map<std::string, std::vector<const StoredFinding *>> by_case; // hit id -> findings
  for (const auto &finding : findings)
    for (const auto &hit : finding.hits) {
      by_case[hit.id].push_back(&finding);
      for (const auto &other : hit.same_bug_as)
        grouper.Join(finding.id, other);
    }
  // What one case showed, judged again on the stored findings: a corpus written before a join
  // existed is re-bucketed when it is read. A stored finding holds its first sighting's lines;
  // TUs are named by their content, so lines of two cases only agree on one TU.
  for (const auto &[hit, together] : by_case)
    for (std::size_t i = 0; i < together.size(); ++i)
      for (std::size_t j = i + 1; j < together.size(); ++j)
        if (SameCauseInOneCase(together[i]->finding, together[j]->finding))
          grouper.Join(together[i]->id, together[j]->id);
  std::vector<Bug> bugs;
  for (const auto &[root, members] : grouper.Groups()) {
    Bug bug;
    std::set<std::string> keys;
    for (const auto &member : members) {
      const StoredFinding &stored = *by_id.at(member);
      bug.members.push_back(stored);
      keys.insert(grouper.KeyOf(member));
      bug.detectors.insert(std::string(DetectorOf(stored.finding.kind)));
      for (const auto &hit : stored.hits) {
        bug.hit_ids.insert(hit.id);
        for (const auto &seen : hit.evidence)
          if (seen.is_object() && seen.value("detector", "") != "")
            bug.detectors.insert(seen.value("detector", ""));
      }
      if (!stored.hits.empty()) {
        if (bug.first_seen.empty() || stored.FirstSeen() < bug.first_seen)
          bug.first_seen = stored.FirstSeen();
        bug.last_seen = std::max(bug.last_seen, stored.LastSeen());
      }
    }
    std::stable_sort(
        bug.members.begin(), bug.members.end(),
        [](const StoredFinding &a, const StoredFinding &b) { return a.HitCount() > b.HitCount(); });
    bug.keys.assign(keys.begin(), keys.end());
    bug.key = bug.keys.front();
    bug.id = BugId(bug.keys);
    bugs.push_back(std::move(bug));
  }
  std::sort(bugs.begin(), bugs.end(), [](const Bug &a, const Bug &b) { return a.id < b.id; });
  return bugs;
}

namespace {

// `into` holds `bug` too: members, keys, detectors, cases and when seen.
void AbsorbBug(Bug &into, Bug bug) {
  for (auto &member : bug.members)
    into.members.push_back(std::move(member));
  std::stable_sort(
      into.members.begin(), into.members.end(),
      [](const StoredFinding &a, const StoredFinding &b) { return a.HitCount() > b.HitCount(); });
  std::set<std::string> keys(into.keys.begin(), into.keys.end());
  keys.insert(bug.keys.begin(), bug.keys.end());
  into.keys.assign(keys.begin(), keys.end());
  into.key = into.keys.front();
  into.id = BugId(into.keys);
  into.detectors.insert(bug.detectors.begin(), bug.detectors.end());
  into.hit_ids.insert(bug.hit_ids.begin(), bug.hit_ids.end());
  if (into.first_seen.empty() || (!bug.first_seen.empty() && bug.first_seen < into.first_seen))
    into.first_seen = bug.first_seen;
  into.last_seen = std::max(into.last_seen, bug.last_seen);
  into.joined.insert(into.joined.end(), bug.joined.begin(), bug.joined.end());
  std::sort(into.joined.begin(), into.joined.end());
}

} // namespace

std::vector<Bug> JoinByKnownIssue(std::vector<Bug> bugs, const KnownIssues &known) {
  std::vector<Bug> joined;
  std::map<std::string, std::size_t> of_issue; // known issue id -> its bug in `joined`
  for (auto &bug : bugs) {
    if (bug.joined.empty())
      bug.joined = {bug.id};
    const KnownIssue *issue = bug.Known(known);
    if (!issue) {
      joined.push_back(std::move(bug));
      continue;
    }
    const auto [at, first] = of_issue.emplace(issue->id, joined.size());
    if (first) {
      bug.known_issue = issue->id;
      joined.push_back(std::move(bug));
    } else {
      AbsorbBug(joined[at->second], std::move(bug));
    }
  }
  std::sort(joined.begin(), joined.end(), [](const Bug &a, const Bug &b) { return a.id < b.id; });
  return joined;
}

} // namespace corpus
