#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::campaign {

// Which slice of the seed sequence a campaign runs: case indices i with i % count == index.
struct Shard {
  unsigned index = 0;
  unsigned count = 1;
  bool Owns(std::uint64_t case_index) const { return case_index % count == index; }
  std::string Name() const { return std::to_string(index) + "of" + std::to_string(count); }
};

// What a campaign is: a resumed campaign must be the same one.
struct JournalHeader {
  std::uint64_t seed = 0;
  Shard shard;
  std::string policy_sha256;
  int generator_version = 0;
  bool operator==(const JournalHeader &) const = default;
};

// One finished case.
struct JournalEntry {
  std::uint64_t index = 0;
  std::string status;                                // pass, expected, finding, invalid-case
  nlohmann::json findings = nlohmann::json::array(); // [{id, kind, signature, new, known_issue}]
  double seconds = 0;
  // Where the case came from: {"origin": "mutation", "parent", "donor", "mutations"} for a
  // mutated one (its parent is in CORPUS/queue/), {} for a generated one; and what it brought.
  nlohmann::json origin = nlohmann::json::object();
  std::vector<std::string> new_features;
};

// An append-only log of finished cases, one JSON line each, written with one write() so that a
// SIGKILL leaves at worst a torn last line, which is ignored. --resume reads it to skip
// finished cases; nothing else is needed to resume, since the corpus holds every finding.
class Journal {
public:
  // Starts a new journal (replacing one with the same header), or, with `resume`, continues
  // the one there. A resumed journal with another header is an InputError.
  Journal(const std::filesystem::path &path, const JournalHeader &header, bool resume);
  ~Journal();
  Journal(const Journal &) = delete;
  Journal &operator=(const Journal &) = delete;

  bool Done(std::uint64_t index) const;
  const std::map<std::uint64_t, JournalEntry> &Entries() const { return entries_; }
  void Append(const JournalEntry &entry);

  // The journal's file for a campaign in a corpus.
  static std::filesystem::path PathFor(const std::filesystem::path &corpus,
                                       const JournalHeader &header);

private:
  std::filesystem::path path_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, JournalEntry> entries_;
};

nlohmann::json EntryToJson(const JournalEntry &entry);
// A journal line as a finished case; none when it is torn or holds no index.
std::optional<JournalEntry> EntryFromJson(const nlohmann::json &line);

// The header of a journal file; none when its first line is not one (a foreign or empty file).
std::optional<JournalHeader> ReadJournalHeader(const std::filesystem::path &path);

// Writes into `into` (atomically) the union of its entries and those of `from`, one line per case
// index, `into`'s line first; `into` is made from `from` when missing. The caller checked that the
// headers are equal.
void MergeJournalInto(const std::filesystem::path &from, const std::filesystem::path &into);

} // namespace fuzzer::campaign
