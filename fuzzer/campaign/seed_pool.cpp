#include "fuzzer/campaign/seed_pool.h"

#include "corpus/case.h"
#include "corpus/record_fields.h"
#include "support/sha256.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace fuzzer::campaign {

namespace fs = std::filesystem;
using nlohmann::json;

// Beside the entries (q-*.json): how many cases reached each feature.
constexpr const char *kReachedFile = "features-reached.json";

namespace {

// A queue entry, q-<id>.json: its case and what it brought. Its id is its file's name; an older
// entry lacks its run's seconds and finding, and its features of every TU (then: those it
// brought).
const corpus::RecordFields<PoolEntry> &QueueEntryFields() {
  using corpus::CustomField, corpus::FieldJson, corpus::FieldReader;
  static const corpus::RecordFields<PoolEntry> fields = {
      CustomField<PoolEntry>(
          "format_version", [](const PoolEntry &) { return FieldJson(1); },
          [](FieldReader &reader, const std::string &key, PoolEntry &) { reader.Optional(key); }),
      CustomField<PoolEntry>(
          "id", [](const PoolEntry &entry) { return FieldJson(entry.id); },
          [](FieldReader &reader, const std::string &key, PoolEntry &) { reader.Optional(key); }),
      CustomField<PoolEntry>(
          "case", [](const PoolEntry &entry) { return FieldJson(corpus::CaseToJson(entry.c)); },
          [](FieldReader &reader, const std::string &key, PoolEntry &entry) {
            entry.c = corpus::CaseFromJson(reader.Required(key));
          }),
      corpus::MemberField("features", &PoolEntry::new_features),
      CustomField<PoolEntry>(
          "all_features", [](const PoolEntry &entry) { return FieldJson(entry.all_features); },
          [](FieldReader &reader, const std::string &key, PoolEntry &entry) {
            entry.all_features = reader.Optional(key) ? reader.Strings(key) : entry.new_features;
          }),
      corpus::OptionalMemberField("seconds", &PoolEntry::seconds),
      corpus::OptionalMemberField("finding", &PoolEntry::finding)};
  return fields;
}

// features-reached.json: how many cases reached each feature, over every campaign on the corpus.
struct FeatureCounts {
  std::map<std::string, std::uint64_t> cases_reaching;
};

const corpus::RecordFields<FeatureCounts> &FeatureCountFields() {
  using corpus::CustomField, corpus::FieldJson, corpus::FieldReader;
  static const corpus::RecordFields<FeatureCounts> fields = {
      CustomField<FeatureCounts>(
          "format_version", [](const FeatureCounts &) { return FieldJson(1); },
          [](FieldReader &reader, const std::string &key, FeatureCounts &) {
            reader.Optional(key);
          }),
      CustomField<FeatureCounts>(
          "cases_reaching",
          [](const FeatureCounts &counts) { return FieldJson(counts.cases_reaching); },
          [](FieldReader &reader, const std::string &key, FeatureCounts &counts) {
            counts.cases_reaching =
                reader.Required(key).get<std::map<std::string, std::uint64_t>>();
          })};
  return fields;
}

std::string FeatureCountsText(const std::map<std::string, std::uint64_t> &cases_reaching) {
  return corpus::WriteFields(FeatureCountFields(), FeatureCounts{cases_reaching}).dump(1) + "\n";
}

std::map<std::string, std::uint64_t> ReadFeatureCounts(const fs::path &file) {
  const json document = json::parse(support::ReadTextFile(file, "feature counts", 64 << 20));
  corpus::FieldReader reader(document, "", file.string());
  FeatureCounts counts;
  corpus::ReadFields(FeatureCountFields(), reader, counts, corpus::UnknownFields::kIgnored);
  return counts.cases_reaching;
}

} // namespace

SeedPool::SeedPool(fs::path queue_dir) : queue_dir_(std::move(queue_dir)) {
  fs::create_directories(queue_dir_);
  std::vector<fs::path> files;
  for (const auto &file : fs::directory_iterator(queue_dir_))
    if (file.path().extension() == ".json" && file.path().stem().string().starts_with("q-"))
      files.push_back(file.path());
  std::sort(files.begin(), files.end()); // the same order on every load
  for (const auto &file : files) {
    try {
      const json document = json::parse(support::ReadTextFile(file, "queue entry", 64 << 20));
      PoolEntry entry{.id = file.stem().string()};
      corpus::FieldReader reader(document, "", file.string());
      corpus::ReadFields(QueueEntryFields(), reader, entry, corpus::UnknownFields::kIgnored);
      seen_.insert(entry.new_features.begin(), entry.new_features.end());
      for (const auto &feature : entry.all_features)
        ++reached_by_[feature];
      entries_.push_back(std::move(entry));
    } catch (const std::exception &error) {
      std::cerr << fmt::format("warning: queue entry {} is unreadable and is left out ({})\n",
                               file.string(), error.what());
    }
  }
  // How many cases reached each feature, over every campaign on this corpus: the entries alone
  // would make a feature that thousands of cases reached look rare.
  try {
    if (fs::exists(queue_dir_ / kReachedFile)) {
      for (const auto &[feature, cases] : ReadFeatureCounts(queue_dir_ / kReachedFile))
        reached_by_[feature] = std::max(reached_by_[feature], cases);
    }
  } catch (const std::exception &error) {
    std::cerr << fmt::format("warning: {} is unreadable; parents are weighed by the queue alone "
                             "until the next case rewrites it ({})\n",
                             (queue_dir_ / kReachedFile).string(), error.what());
  }
}

std::vector<std::string> SeedPool::Offer(const corpus::Case &c,
                                         const std::set<std::string> &features,
                                         const RunSummary &run) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> fresh;
  for (const auto &feature : features) {
    ++reached_by_[feature];
    if (seen_.insert(feature).second)
      fresh.push_back(feature);
  }
  if (const std::string parent = c.provenance.value("parent", ""); !parent.empty())
    for (auto &entry : entries_)
      if (entry.id == parent) {
        entry.fruitful_children += fresh.empty() ? 0 : 1;
        entry.failing_children += fresh.empty() && run.finding ? 1 : 0;
      }
  if (!features.empty())
    support::WriteFileAtomically(queue_dir_ / kReachedFile, FeatureCountsText(reached_by_));
  if (fresh.empty())
    return fresh;
  const json case_json = corpus::CaseToJson(c);
  PoolEntry entry{.id = "q-" + support::Sha256Hex(case_json.dump()).substr(0, 16),
                  .c = c,
                  .new_features = fresh,
                  .all_features = {features.begin(), features.end()},
                  .seconds = run.seconds,
                  .finding = run.finding};
  support::WriteFileAtomically(queue_dir_ / (entry.id + ".json"),
                               corpus::WriteFields(QueueEntryFields(), entry).dump(1) + "\n");
  entries_.push_back(std::move(entry));
  return fresh;
}

std::optional<PoolEntry> SeedPool::Pick(generate::Random &random) {
  std::lock_guard lock(mutex_);
  if (entries_.empty())
    return std::nullopt;
  // An entry's run time against the pool's median: a case twice as slow costs twice the time
  // per mutant; bounded, so that no entry is starved for its time alone.
  std::vector<double> times;
  for (const auto &entry : entries_)
    if (entry.seconds > 0)
      times.push_back(entry.seconds);
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::vector<double> weights;
  for (const auto &entry : entries_) {
    double rarity = 0;
    for (const auto &feature : entry.all_features)
      if (const auto reached = reached_by_.find(feature); reached != reached_by_.end())
        rarity += 1.0 / static_cast<double>(reached->second);
    const double cost =
        entry.seconds > 0 && median > 0 ? std::clamp(entry.seconds / median, 0.5, 4.0) : 1.0;
    // A finding's mutants mostly find it again: its features still count, its weight less.
    const double yield = (1.0 + static_cast<double>(entry.fruitful_children)) /
                         (1.0 + static_cast<double>(entry.failing_children)) *
                         (entry.finding ? 0.3 : 1.0);
    weights.push_back((0.1 + rarity) * yield / cost /
                      std::sqrt(1.0 + static_cast<double>(entry.picked)));
  }
  PoolEntry &chosen = entries_[random.Weighted(weights)];
  ++chosen.picked;
  return chosen;
}

std::size_t SeedPool::Size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t SeedPool::FeaturesSeen() const {
  std::lock_guard lock(mutex_);
  return seen_.size();
}

std::set<std::string> SeedPool::Features() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

QueueFiles ReadQueueFiles(const fs::path &queue_dir) {
  QueueFiles files;
  std::error_code error;
  for (const auto &file : fs::directory_iterator(queue_dir, error)) {
    const std::string name = file.path().filename().string();
    if (file.path().extension() != ".json")
      continue;
    try {
      const std::string text = support::ReadTextFile(file.path(), "queue file", 64 << 20);
      const json document = json::parse(text);
      if (name == kReachedFile)
        files.cases_reaching = ReadFeatureCounts(file.path());
      else if (name.starts_with("q-"))
        files.entries[name] = text;
    } catch (const std::exception &failure) {
      std::cerr << fmt::format("warning: queue file {} is unreadable and is not merged ({})\n",
                               file.path().string(), failure.what());
    }
  }
  return files;
}

std::size_t MergeQueueInto(const QueueFiles &from, const fs::path &queue_dir) {
  fs::create_directories(queue_dir);
  std::size_t added = 0;
  for (const auto &[name, text] : from.entries)
    if (!fs::exists(queue_dir / name)) {
      support::WriteFileAtomically(queue_dir / name, text);
      ++added;
    }
  if (from.cases_reaching.empty())
    return added;
  auto counts = ReadQueueFiles(queue_dir).cases_reaching;
  for (const auto &[feature, cases] : from.cases_reaching)
    counts[feature] = std::max(counts[feature], cases);
  support::WriteFileAtomically(queue_dir / kReachedFile, FeatureCountsText(counts));
  return added;
}

} // namespace fuzzer::campaign
