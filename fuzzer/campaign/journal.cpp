#include "fuzzer/campaign/journal.h"

#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;

json HeaderToJson(const JournalHeader &header) {
  return {{"journal", "inductor-fuzz campaign"},
          {"format_version", 1},
          {"seed", header.seed},
          {"shard", header.shard.Name()},
          {"policy_sha256", header.policy_sha256},
          {"generator_version", header.generator_version}};
}

void WriteAll(int fd, const std::string &text, const std::filesystem::path &path) {
  // O_APPEND and a single write: the line lands whole or, if killed mid-way, torn at the end.
  const ssize_t written = ::write(fd, text.data(), text.size());
  if (written != static_cast<ssize_t>(text.size()))
    throw support::InputError(fmt::format("cannot append to {}: {}; is the disk full?",
                                          path.string(), std::strerror(errno)));
}

// How many case entries the journal at `path` holds (0 when there is none): a journal with one
// is a campaign's record, which a new campaign must not replace.
std::size_t FinishedCases(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::size_t entries = 0;
  for (std::string line; std::getline(in, line);) {
    const json parsed = json::parse(line, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("index"))
      ++entries;
  }
  return entries;
}

} // namespace

json EntryToJson(const JournalEntry &entry) {
  json line = {{"index", entry.index},
               {"status", entry.status},
               {"findings", entry.findings},
               {"seconds", entry.seconds}};
  if (!entry.origin.empty())
    line["origin"] = entry.origin;
  if (!entry.new_features.empty())
    line["new_features"] = entry.new_features;
  return line;
}

std::optional<JournalHeader> ReadJournalHeader(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  const json parsed = json::parse(line, nullptr, false);
  if (!parsed.is_object() || parsed.value("journal", "") != "inductor-fuzz campaign")
    return std::nullopt;
  JournalHeader header;
  header.seed = parsed.value("seed", std::uint64_t{0});
  const std::string shard = parsed.value("shard", "0of1");
  if (std::sscanf(shard.c_str(), "%uof%u", &header.shard.index, &header.shard.count) != 2)
    return std::nullopt;
  header.policy_sha256 = parsed.value("policy_sha256", "");
  header.generator_version = parsed.value("generator_version", 0);
  return header;
}

void MergeJournalInto(const std::filesystem::path &from, const std::filesystem::path &into) {
  std::string header;
  std::map<std::uint64_t, std::string> lines; // case index -> its line, the first one kept
  for (const auto &path : {into, from}) {
    std::ifstream in(path);
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
      const json parsed = json::parse(line, nullptr, false);
      if (first) {
        first = false;
        if (header.empty() && parsed.is_object())
          header = line;
        continue;
      }
      if (parsed.is_object() && parsed.contains("index") && parsed["index"].is_number_unsigned())
        lines.emplace(parsed["index"].get<std::uint64_t>(), line); // a torn line is dropped
    }
  }
  std::ostringstream merged;
  merged << header << "\n";
  for (const auto &[index, line] : lines)
    merged << line << "\n";
  std::filesystem::create_directories(into.parent_path());
  support::WriteFileAtomically(into, merged.str());
}

std::filesystem::path Journal::PathFor(const std::filesystem::path &corpus,
                                       const JournalHeader &header) {
  return corpus / "campaigns" /
         fmt::format("seed-{}-shard-{}.jsonl", header.seed, header.shard.Name());
}

Journal::Journal(const std::filesystem::path &path, const JournalHeader &header, bool resume)
    : path_(path) {
  std::filesystem::create_directories(path.parent_path());
  const json expected = HeaderToJson(header);
  if (resume && std::filesystem::exists(path)) {
    std::ifstream in(path);
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
      const json parsed = json::parse(line, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_object())
        continue; // a line torn by a kill
      if (first) {
        if (parsed != expected) {
          // Which of the header's fields differ, by name: the record itself can be kilobytes.
          std::vector<std::string> differing;
          for (const auto &[key, value] : expected.items())
            if (!parsed.contains(key) || parsed[key] != value)
              differing.push_back(key);
          if (differing.empty())
            differing.push_back("its header");
          throw support::InputError(fmt::format(
              "{} is another campaign ({} differ); --resume goes on only with that campaign's "
              "--seed, --shard and --policy; to start this one, give another --corpus",
              path.string(), fmt::join(differing, ", ")));
        }
        first = false;
        continue;
      }
      if (!parsed.contains("index") || !parsed["index"].is_number_unsigned())
        continue;
      JournalEntry entry;
      entry.index = parsed["index"].get<std::uint64_t>();
      entry.status = parsed.value("status", "");
      entry.findings = parsed.value("findings", json::array());
      entry.seconds = parsed.value("seconds", 0.0);
      entry.origin = parsed.value("origin", json::object());
      entry.new_features = parsed.value("new_features", std::vector<std::string>{});
      entries_[entry.index] = entry;
    }
    // A torn last line must not glue itself to the next entry.
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ >= 0 && std::filesystem::file_size(path) > 0) {
      std::ifstream tail(path, std::ios::binary);
      tail.seekg(-1, std::ios::end);
      if (tail.get() != '\n')
        WriteAll(fd_, "\n", path);
    }
  } else {
    if (const std::size_t finished = FinishedCases(path); finished > 0)
      throw support::InputError(fmt::format(
          "{} already holds this campaign ({} case(s) run with this --seed and --shard); "
          "--resume goes on with it, or give another --seed or --corpus",
          path.string(), finished));
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ >= 0)
      WriteAll(fd_, expected.dump() + "\n", path);
  }
  if (fd_ < 0)
    throw support::InputError(
        fmt::format("cannot write the campaign journal {}: {}; pick a writable --corpus",
                    path.string(), std::strerror(errno)));
}

Journal::~Journal() {
  if (fd_ >= 0)
    ::close(fd_);
}

bool Journal::Done(std::uint64_t index) const {
  std::lock_guard lock(mutex_);
  return entries_.contains(index);
}

void Journal::Append(const JournalEntry &entry) {
  std::lock_guard lock(mutex_);
  WriteAll(fd_, EntryToJson(entry).dump() + "\n", path_);
  entries_[entry.index] = entry;
}

} // namespace fuzzer::campaign
