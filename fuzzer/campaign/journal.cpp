#include "fuzzer/campaign/journal.h"

#include "corpus/record_fields.h"
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

constexpr std::string_view kJournalTag = "inductor-fuzz campaign";

// The journal's first line: which campaign it is. Read leniently (a journal from another tool,
// or torn, is no journal: ReadJournalHeader says none), compared whole on --resume.
const corpus::RecordFields<JournalHeader> &HeaderFields() {
  using corpus::CustomField, corpus::FieldJson, corpus::FieldReader;
  static const corpus::RecordFields<JournalHeader> fields = {
      CustomField<JournalHeader>(
          "journal", [](const JournalHeader &) { return FieldJson(kJournalTag); },
          [](FieldReader &reader, const std::string &key, JournalHeader &) {
            if (reader.String(key) != kJournalTag)
              throw corpus::FormatError("not an inductor-fuzz campaign journal");
          }),
      CustomField<JournalHeader>(
          "format_version", [](const JournalHeader &) { return FieldJson(1); },
          [](FieldReader &reader, const std::string &key, JournalHeader &) {
            reader.Optional(key);
          }),
      corpus::LenientMemberField("seed", &JournalHeader::seed),
      CustomField<JournalHeader>(
          "shard", [](const JournalHeader &header) { return FieldJson(header.shard.Name()); },
          [](FieldReader &reader, const std::string &key, JournalHeader &header) {
            const json *shard = reader.Optional(key);
            const std::string name =
                shard && shard->is_string() ? shard->get<std::string>() : "0of1";
            if (std::sscanf(name.c_str(), "%uof%u", &header.shard.index, &header.shard.count) != 2)
              throw corpus::FormatError(fmt::format("shard '{}' is not INDEXofCOUNT", name));
          }),
      corpus::LenientMemberField("policy_sha256", &JournalHeader::policy_sha256),
      corpus::LenientMemberField("generator_version", &JournalHeader::generator_version)};
  return fields;
}

json HeaderToJson(const JournalHeader &header) {
  return corpus::WriteFields(HeaderFields(), header);
}

// A finished case's line. A line without its index is torn or not the journal's: left out.
const corpus::RecordFields<JournalEntry> &EntryFields() {
  using corpus::CustomField, corpus::FieldJson, corpus::FieldReader, corpus::AbsentField;
  static const corpus::RecordFields<JournalEntry> fields = {
      CustomField<JournalEntry>(
          "index", [](const JournalEntry &entry) { return FieldJson(entry.index); },
          [](FieldReader &reader, const std::string &key, JournalEntry &entry) {
            const json &index = reader.Required(key);
            if (!index.is_number_unsigned())
              throw corpus::FormatError("a journal entry's index must be a count");
            entry.index = index.get<std::uint64_t>();
          }),
      corpus::LenientMemberField("status", &JournalEntry::status),
      corpus::LenientMemberField("findings", &JournalEntry::findings),
      corpus::LenientMemberField("seconds", &JournalEntry::seconds),
      CustomField<JournalEntry>(
          "origin",
          [](const JournalEntry &entry) {
            return entry.origin.empty() ? AbsentField() : FieldJson(entry.origin);
          },
          [](FieldReader &reader, const std::string &key, JournalEntry &entry) {
            if (const json *origin = reader.Optional(key))
              entry.origin = *origin;
          }),
      CustomField<JournalEntry>(
          "new_features",
          [](const JournalEntry &entry) {
            return entry.new_features.empty() ? AbsentField() : FieldJson(entry.new_features);
          },
          corpus::LenientMemberField("new_features", &JournalEntry::new_features).read)};
  return fields;
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

json EntryToJson(const JournalEntry &entry) { return corpus::WriteFields(EntryFields(), entry); }

std::optional<JournalEntry> EntryFromJson(const json &line) {
  if (!line.is_object())
    return std::nullopt;
  JournalEntry entry;
  try {
    corpus::FieldReader reader(line, "", "a journal entry");
    corpus::ReadFields(EntryFields(), reader, entry, corpus::UnknownFields::kIgnored);
  } catch (const corpus::FormatError &) {
    return std::nullopt;
  }
  return entry;
}

std::optional<JournalHeader> ReadJournalHeader(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  const json parsed = json::parse(line, nullptr, false);
  if (!parsed.is_object())
    return std::nullopt;
  JournalHeader header;
  try {
    corpus::FieldReader reader(parsed, "", path.string());
    corpus::ReadFields(HeaderFields(), reader, header, corpus::UnknownFields::kIgnored);
  } catch (const corpus::FormatError &) {
    return std::nullopt;
  }
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
      if (const auto entry = EntryFromJson(parsed))
        entries_[entry->index] = *entry;
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
