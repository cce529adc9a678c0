#include "corpus/finding_store.h"

#include "corpus/bug_key.h"
#include "corpus/field_reader.h"
#include "corpus/record_fields.h"
#include "support/text_file.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <system_error>
#include <tuple>

#include <unistd.h>

namespace corpus {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A seed or an index: a count, or null where the hit has none (a hand-written case).
RecordField<Hit> CountField(std::string_view name, std::optional<std::uint64_t> Hit::*member) {
  return CustomField<Hit>(
      name,
      [member](const Hit &hit) { return hit.*member ? FieldJson(*(hit.*member)) : FieldJson(); },
      [member](FieldReader &reader, const std::string &key, Hit &hit) {
        if (const auto value = reader.IntegerOrNull(key, 0))
          hit.*member = static_cast<std::uint64_t>(*value);
      });
}

// Hits written before `same_bug_as` and `evidence` existed (format 1) are read without them.
bool Version2(FieldReader &reader) { return reader.Integer("format_version", 0) >= 2; }

const RecordFields<Hit> &HitFields() {
  static const RecordFields<Hit> fields = {
      CustomField<Hit>(
          "format_version", [](const Hit &) { return FieldJson(kFindingStoreFormatVersion); },
          [](FieldReader &reader, const std::string &key, Hit &) {
            const auto version = reader.Integer(key, 0);
            if (version < 1 || version > kFindingStoreFormatVersion)
              throw FormatError(fmt::format("the hit has format_version {}; this build reads 1 "
                                            "to {}: a newer inductor-fuzz wrote it",
                                            version, kFindingStoreFormatVersion));
          }),
      MemberField("id", &Hit::id),
      MemberField("case_name", &Hit::case_name),
      CountField("seed", &Hit::seed),
      CountField("index", &Hit::index),
      MemberField("time", &Hit::time),
      MemberField("case_size", &Hit::case_size),
      MemberField("provenance", &Hit::provenance),
      CustomField<Hit>(
          "same_bug_as", [](const Hit &hit) { return FieldJson(hit.same_bug_as); },
          [](FieldReader &reader, const std::string &key, Hit &hit) {
            if (!Version2(reader))
              return;
            for (const auto &id : reader.Required(key))
              if (id.is_string())
                hit.same_bug_as.push_back(id.get<std::string>());
          }),
      CustomField<Hit>(
          "evidence", [](const Hit &hit) { return FieldJson(hit.evidence); },
          [](FieldReader &reader, const std::string &key, Hit &hit) {
            if (Version2(reader))
              hit.evidence = reader.Required(key);
          })};
  return fields;
}

json HitToJson(const Hit &hit) { return WriteFields(HitFields(), hit); }

// corpus.json: which signature version wrote the folders (0 where it is left out: migrate).
struct CorpusMetadata {
  int signature_version = 0;
};

const RecordFields<CorpusMetadata> &MetadataFields() {
  static const RecordFields<CorpusMetadata> fields = {
      CustomField<CorpusMetadata>(
          "format_version",
          [](const CorpusMetadata &) { return FieldJson(kFindingStoreFormatVersion); },
          [](FieldReader &reader, const std::string &key, CorpusMetadata &) {
            reader.Optional(key);
          }),
      OptionalMemberField("signature_version", &CorpusMetadata::signature_version)};
  return fields;
}

Hit HitFromJson(const json &document) {
  FieldReader reader(document, "", "the hit");
  Hit hit;
  ReadFields(HitFields(), reader, hit);
  return hit;
}

bool IsSafeName(const std::string &name) {
  return !name.empty() && name.size() < 200 && name.front() != '.' &&
         std::all_of(
             name.begin(), name.end(),
             [](char ch) {
               return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' ||
                      ch == '.';
             });
}

// A unique name for a file or folder being made, so that concurrent writers never share one.
std::string UniqueName(const std::string &stem) {
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}.{}.{}.{}", stem, ::getpid(),
                     std::chrono::steady_clock::now().time_since_epoch().count(), ++counter);
}

// Renames `from` to `to` unless `to` exists; true when this call put it there.
bool RenameIfAbsent(const fs::path &from, const fs::path &to) {
  std::error_code error;
  fs::rename(from, to, error); // a folder over a non-empty folder fails: someone else won
  if (!error)
    return true;
  fs::remove_all(from, error);
  return false;
}

} // namespace

std::string StoredFindingId(const Finding &finding) {
  return fmt::format("{}-{}", KindName(finding.kind), SignatureId(Signature(finding)));
}

std::string UtcNow() {
  // fmt 9 formats a time_point in local time: go through gmtime, or the Z would be a lie.
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

std::string HitId(const Case &c) {
  const auto seed = c.provenance.find("seed");
  const auto index = c.provenance.find("index");
  if (seed != c.provenance.end() && index != c.provenance.end() && seed->is_number_unsigned() &&
      index->is_number_unsigned())
    return fmt::format("s{}-i{}", seed->get<std::uint64_t>(), index->get<std::uint64_t>());
  return "c" + SignatureId(CaseToJson(c).dump());
}

Hit MakeHit(const Case &c, const json &provenance, const std::string &time) {
  Hit hit{.id = HitId(c),
          .case_name = c.name,
          .time = time,
          .case_size = CaseToJson(c).dump().size(),
          .provenance = provenance};
  if (const auto seed = c.provenance.find("seed");
      seed != c.provenance.end() && seed->is_number_unsigned())
    hit.seed = seed->get<std::uint64_t>();
  if (const auto index = c.provenance.find("index");
      index != c.provenance.end() && index->is_number_unsigned())
    hit.index = index->get<std::uint64_t>();
  return hit;
}

std::string StoredFinding::FirstSeen() const { return hits.empty() ? "" : hits.front().time; }
std::string StoredFinding::LastSeen() const { return hits.empty() ? "" : hits.back().time; }

std::vector<std::uint64_t> StoredFinding::Seeds() const {
  std::set<std::uint64_t> seeds;
  for (const auto &hit : hits)
    if (hit.seed)
      seeds.insert(*hit.seed);
  return {seeds.begin(), seeds.end()};
}

json StoredFinding::Summary() const {
  json torch_versions = json::array(), compilers = json::array(), tools = json::array(),
       command_lines = json::array();
  auto add_unique = [](json &list, const json &value) {
    if (!value.is_null() && std::find(list.begin(), list.end(), value) == list.end())
      list.push_back(value);
  };
  for (const auto &hit : hits) {
    if (!hit.provenance.is_object()) // a hit recorded without provenance says nothing here
      continue;
    add_unique(torch_versions, hit.provenance.value("torch_version", json()));
    add_unique(tools, hit.provenance.value("tool_version", json()));
    add_unique(command_lines, hit.provenance.value("command_line", json()));
    for (const auto &compiler : hit.provenance.value("compilers", json::array()))
      add_unique(compilers, compiler);
  }
  for (const auto &compiler : finding.compilers)
    add_unique(compilers, compiler);
  return {{"id", id},
          {"kind", KindName(finding.kind)},
          {"signature", signature},
          {"summary", finding.summary},
          {"hit_count", hits.size()},
          {"first_seen", FirstSeen()},
          {"last_seen", LastSeen()},
          {"seeds", Seeds()},
          {"torch_versions", torch_versions},
          {"baselines", baselines},
          {"delivery", delivery ? DeliveryToJson(*delivery) : json()},
          {"compilers", compilers},
          {"tool_versions", tools},
          {"command_lines", command_lines},
          {"smallest_case", smallest.empty() ? "" : (smallest / "case.json").string()},
          {"repro", smallest.empty() ? "" : (smallest / "repro.py").string()}};
}

FindingStore::FindingStore(fs::path root) : root_(std::move(root)) {
  std::error_code error;
  fs::create_directories(FindingsDir(), error);
  fs::create_directories(Staging(), error);
  if (!fs::is_directory(FindingsDir()))
    throw support::InputError(
        fmt::format("cannot make the corpus folder {}: {}; pick a writable --corpus",
                    FindingsDir().string(), error ? error.message() : "not a folder"));
  // What a killed writer left half-made; a day is far longer than any write takes.
  const auto stale = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (const auto &entry : fs::directory_iterator(Staging(), error))
    if (fs::last_write_time(entry.path(), error) < stale)
      fs::remove_all(entry.path(), error);
  int version = 1; // a corpus without corpus.json was written before it existed
  if (fs::exists(MetadataFile())) {
    const json document =
        ReadJsonDocument(MetadataFile(), "corpus metadata", "the corpus is damaged");
    CorpusMetadata metadata;
    try {
      FieldReader reader(document, "", MetadataFile().string());
      ReadFields(MetadataFields(), reader, metadata, UnknownFields::kIgnored);
    } catch (const FormatError &error) {
      throw FormatError(fmt::format("{}; the corpus is damaged", error.what()));
    }
    version = metadata.signature_version;
    if (version > kSignatureVersion)
      throw support::InputError(fmt::format(
          "{} was written by a newer inductor-fuzz (signature version {}; this build has {}): "
          "use that version or a newer one",
          root_.string(), version, kSignatureVersion));
  }
  if (version < kSignatureVersion) {
    migration_ = Migrate();
    migration_.from_signature_version = version;
  }
}

MigrationReport FindingStore::Migrate() {
  MigrationReport report;
  std::vector<fs::directory_entry> folders; // listed first: merging adds folders
  for (const auto &entry : fs::directory_iterator(FindingsDir()))
    if (entry.is_directory() && entry.path().filename().string().front() != '.')
      folders.push_back(entry);
  std::sort(folders.begin(), folders.end());
  for (const auto &entry : folders) {
    ++report.folders;
    const StoredFinding stored = ReadFinding(entry.path());
    const json written =
        ReadJsonDocument(entry.path() / "finding.json", "finding", "the corpus is damaged");
    if (stored.id == StoredFindingId(stored.finding)) {
      if (written.value("signature", "") != stored.signature) {
        support::WriteFileAtomically(entry.path() / "finding.json",
                                     FindingToJson(stored.finding).dump(2) + "\n");
        ++report.resigned;
      }
      continue;
    }
    // Its signature names another folder now: everything it holds moves there, then it goes.
    Absorb(stored);
    const fs::path target = FindingsDir() / StoredFindingId(stored.finding);
    for (const auto &baseline : fs::directory_iterator(entry.path()))
      if (baseline.path().filename().string().starts_with("baseline-") &&
          !fs::exists(target / baseline.path().filename()))
        fs::copy_file(baseline.path(), target / baseline.path().filename());
    const fs::path retired = Staging() / UniqueName("migrated-" + stored.id);
    fs::rename(entry.path(), retired);
    std::error_code error;
    fs::remove_all(retired, error);
    ++report.moved;
  }
  for (const auto &finding : List())
    report.hits += finding.HitCount();
  support::WriteFileAtomically(
      MetadataFile(),
      WriteFields(MetadataFields(), CorpusMetadata{kSignatureVersion}).dump(2) + "\n");
  return report;
}

fs::path FindingStore::Staging() const { return root_ / ".staging"; }

StoreOutcome FindingStore::Record(const Finding &finding, const Hit &hit,
                                  const RecordWriter &write_record) {
  if (!IsSafeName(hit.id))
    throw support::InputError(fmt::format("hit id '{}' is not a safe file name", hit.id));
  const fs::path folder = FindingsDir() / StoredFindingId(finding);
  if (!fs::exists(folder / "finding.json")) {
    // A new finding lands whole or not at all (a full disk, a kill): its finding.json, its
    // first record and its hit are made in the staging folder and renamed into place at once.
    const fs::path staged = Staging() / UniqueName(StoredFindingId(finding));
    try {
      fs::create_directories(staged / "hits");
      fs::create_directories(staged / "records" / hit.id);
      support::WriteFileAtomically(staged / "finding.json", FindingToJson(finding).dump(2) + "\n");
      write_record(staged / "records" / hit.id);
      if (!fs::exists(staged / "records" / hit.id / "case.json"))
        fs::remove_all(staged / "records" / hit.id);
      support::WriteFileAtomically(staged / "hits" / (hit.id + ".json"),
                                   HitToJson(hit).dump(2) + "\n");
    } catch (...) {
      std::error_code error;
      fs::remove_all(staged, error);
      throw;
    }
    if (RenameIfAbsent(staged, folder))
      return StoreOutcome::kNew;
    // Another writer stored it first: this hit joins theirs.
  }
  // The record before the hit: a hit is never left without the record it names.
  KeepSmallest(folder, hit, write_record);
  support::WriteFileAtomically(folder / "hits" / (hit.id + ".json"), HitToJson(hit).dump(2) + "\n");
  return StoreOutcome::kKnown;
}

void FindingStore::KeepSmallest(const fs::path &folder, const Hit &hit,
                                const RecordWriter &write_record) {
  // The smallest of the stored records, by (case size, hit id): the same answer whatever
  // order the hits came in.
  auto key_of =
      [&folder](const std::string &id) -> std::optional<std::pair<std::uint64_t, std::string>> {
    try {
      const Hit stored = HitFromJson(
          ReadJsonDocument(folder / "hits" / (id + ".json"), "hit", "the corpus is damaged"));
      return std::make_pair(stored.case_size, stored.id);
    } catch (const support::InputError &) {
      return std::nullopt;
    }
  };
  std::optional<std::pair<std::uint64_t, std::string>> best;
  std::vector<std::string> records;
  for (const auto &entry : fs::directory_iterator(folder / "records")) {
    const std::string id = entry.path().filename().string();
    records.push_back(id);
    if (!fs::exists(entry.path() / "case.json"))
      continue;
    if (const auto key = key_of(id); key && (!best || *key < *best))
      best = key;
  }
  const std::pair<std::uint64_t, std::string> mine{hit.case_size, hit.id};
  if (!best || mine < *best) {
    const fs::path staged = Staging() / UniqueName("record-" + hit.id);
    try {
      fs::create_directories(staged);
      write_record(staged);
    } catch (...) {
      std::error_code error;
      fs::remove_all(staged, error);
      throw;
    }
    std::error_code error;
    if (!fs::exists(staged / "case.json"))
      fs::remove_all(staged, error); // nothing to keep: the writer had no record for this hit
    else if (RenameIfAbsent(staged, folder / "records" / hit.id))
      best = mine;
  }
  // Larger records are only kept until a smaller one is whole.
  for (const auto &id : records)
    if (best && id != best->second) {
      std::error_code error;
      fs::remove_all(folder / "records" / id, error);
    }
}

StoredFinding FindingStore::ReadFinding(const fs::path &folder) const {
  StoredFinding stored;
  stored.id = folder.filename().string();
  stored.folder = folder;
  try {
    stored.finding = FindingFromJson(
        ReadJsonDocument(folder / "finding.json", "finding", "the corpus folder is damaged"));
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", (folder / "finding.json").string(), error.what()));
  }
  // A folder named by an older signature is read as it is; Migrate moves it where it belongs.
  stored.signature = Signature(stored.finding);
  stored.key = BugKey(stored.finding);
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(folder / "hits", error)) {
    if (entry.path().extension() != ".json" || entry.path().filename().string().front() == '.')
      continue;
    try {
      stored.hits.push_back(
          HitFromJson(ReadJsonDocument(entry.path(), "hit", "the corpus is damaged")));
    } catch (const FormatError &format) {
      throw FormatError(fmt::format("{}: {}", entry.path().string(), format.what()));
    }
  }
  std::sort(stored.hits.begin(), stored.hits.end(), [](const Hit &a, const Hit &b) {
    return std::tie(a.time, a.id) < std::tie(b.time, b.id);
  });
  for (const auto &entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("baseline-") && entry.path().extension() == ".json")
      stored.baselines.push_back(
          ReadJsonDocument(entry.path(), "baseline label", "the corpus is damaged"));
  }
  try {
    stored.delivery = ReadDelivery(folder);
  } catch (const FormatError &) {
    stored.delivery.reset();
  }
  std::optional<std::pair<std::uint64_t, std::string>> best;
  for (const auto &entry : fs::directory_iterator(folder / "records", error)) {
    const std::string id = entry.path().filename().string();
    const auto hit = std::find_if(stored.hits.begin(), stored.hits.end(),
                                  [&id](const Hit &h) { return h.id == id; });
    if (hit == stored.hits.end() || !fs::exists(entry.path() / "case.json"))
      continue;
    const std::pair<std::uint64_t, std::string> key{hit->case_size, hit->id};
    if (!best || key < *best) {
      best = key;
      stored.smallest = entry.path();
    }
  }
  return stored;
}

std::vector<StoredFinding> FindingStore::List() const {
  std::vector<StoredFinding> findings;
  for (const auto &entry : fs::directory_iterator(FindingsDir()))
    if (entry.is_directory() && entry.path().filename().string().front() != '.')
      findings.push_back(ReadFinding(entry.path()));
  std::sort(findings.begin(), findings.end(),
            [](const StoredFinding &a, const StoredFinding &b) { return a.id < b.id; });
  return findings;
}

StoredFinding FindingStore::Load(const std::string &id_or_prefix) const {
  if (!IsSafeName(id_or_prefix))
    throw support::InputError(fmt::format(
        "'{}' is not a finding id; `inductor-fuzz corpus list` shows the ids", id_or_prefix));
  std::vector<fs::path> matches;
  for (const auto &entry : fs::directory_iterator(FindingsDir()))
    if (entry.path().filename().string().starts_with(id_or_prefix))
      matches.push_back(entry.path());
  if (matches.size() != 1)
    throw support::InputError(
        fmt::format("{} finding(s) in {} match '{}'; `inductor-fuzz corpus list` shows the ids",
                    matches.size(), root_.string(), id_or_prefix));
  return ReadFinding(matches.front());
}

std::size_t FindingStore::Absorb(const StoredFinding &source) {
  const fs::path folder = FindingsDir() / StoredFindingId(source.finding);
  std::set<std::string> known;
  if (fs::exists(folder / "finding.json"))
    for (const auto &hit : ReadFinding(folder).hits)
      known.insert(hit.id);
  std::size_t added = 0;
  for (const auto &hit : source.hits) {
    if (known.contains(hit.id))
      continue;
    const bool has_record = !source.smallest.empty() && source.smallest.filename() == hit.id;
    Record(source.finding, hit, [&](const fs::path &record_dir) {
      if (has_record)
        fs::copy(source.smallest, record_dir, fs::copy_options::recursive);
    });
    ++added;
  }
  // What was made of it (a delivery, its reduction and draft, baselines) when this corpus has
  // none: a merged night keeps its shards' reductions.
  for (const auto &entry : fs::directory_iterator(source.folder)) {
    const std::string name = entry.path().filename().string();
    const bool made_of_it = name == "delivery.json" || name == "reduced" || name == "issue.md" ||
                            (name.starts_with("baseline-") && name.ends_with(".json"));
    if (!made_of_it || fs::exists(folder / name))
      continue;
    const fs::path staged = Staging() / UniqueName(name);
    fs::create_directories(Staging());
    fs::copy(entry.path(), staged, fs::copy_options::recursive);
    RenameIfAbsent(staged, folder / name);
  }
  // A record copied for a hit that was not the smallest there is dropped by KeepSmallest; a
  // smallest whose hit was already known is copied here.
  if (!source.smallest.empty() && !fs::exists(folder / "records" / source.smallest.filename())) {
    const Hit *hit = nullptr;
    for (const auto &h : source.hits)
      if (h.id == source.smallest.filename().string())
        hit = &h;
    if (hit)
      KeepSmallest(folder, *hit, [&](const fs::path &record_dir) {
        fs::copy(source.smallest, record_dir, fs::copy_options::recursive);
      });
  }
  return added;
}

std::size_t FindingStore::MergeFrom(const fs::path &other_root) {
  if (!fs::is_directory(other_root / "findings"))
    throw support::InputError(fmt::format(
        "{} is not a corpus (it has no findings/ folder); give the --corpus of a campaign",
        other_root.string()));
  const FindingStore other(other_root);
  return MergeFindings(other.List());
}

std::size_t FindingStore::MergeFindings(const std::vector<StoredFinding> &listed) {
  std::size_t added = 0;
  for (const auto &source : listed)
    added += Absorb(source);
  return added;
}

} // namespace corpus
