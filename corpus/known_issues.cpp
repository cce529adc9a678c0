#include "corpus/known_issues.h"

#include "corpus/bug_key.h"
#include "corpus/field_reader.h"
#include "corpus/finding.h"
#include "corpus/knobs.h"
#include "corpus/record_fields.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace corpus {
const std::vector<std::string> &KnownIssueStatuses() {
  static const std::vector<std::string> statuses = {"unreported",     "reported",
                                                    "fixed-upstream", "fixed-in <release>",
                                                    "investigating",  "wont-fix"};
  return statuses;
}

std::string FixedInRelease(const std::string &status) {
  constexpr std::string_view prefix = "fixed-in ";
  if (!status.starts_with(prefix) || status.size() == prefix.size())
    return "";
  const std::string release = status.substr(prefix.size());
  const bool plausible = std::isdigit(static_cast<unsigned char>(release.front())) &&
                         release.find_first_of(" \t") == std::string::npos;
  return plausible ? release : "";
}

bool IsKnownIssueStatus(const std::string &status) {
  const auto &statuses = KnownIssueStatuses();
  return !FixedInRelease(status).empty() ||
         (std::find(statuses.begin(), statuses.end(), status) != statuses.end() &&
          !status.starts_with("fixed-in"));
}

namespace {

// Whether a signature or key (already taken apart) has every fact the match names, each with a
// value its pattern matches. Facts the match leaves out may hold anything.
bool FactsMatch(const KeyFacts &pattern, const KeyFacts &candidate) {
  if (pattern.kind != candidate.kind)
    return false;
  for (const auto &[name, glob] : pattern.facts) {
    bool found = false;
    for (const auto &[fact, value] : candidate.facts)
      if (fact == name && support::GlobMatches(glob, value)) {
        found = true;
        break;
      }
    if (!found)
      return false;
  }
  return true;
}

// The match taken apart, or FormatError naming what is wrong with it.
KeyFacts ParseMatch(const std::string &match) {
  const auto bar = match.find('|');
  const std::string kind = match.substr(0, bar);
  const auto *facts = FactsOfKind(kind);
  if (!facts)
    throw FormatError(fmt::format("starts with '{}', which is no finding kind (a match is "
                                  "KIND|FACT=PATTERN|...)",
                                  kind));
  KeyFacts parsed{.kind = kind};
  if (bar == std::string::npos)
    return parsed;
  // A fact starts at each "|name=" (a lower-case name); each name must be one of the kind's.
  static const std::regex fact_start(R"(\|([a-z_]+)=)");
  std::vector<std::smatch> starts;
  for (auto it = std::sregex_iterator(match.begin(), match.end(), fact_start);
       it != std::sregex_iterator(); ++it)
    starts.push_back(*it);
  if (starts.empty() || static_cast<std::size_t>(starts.front().position()) != bar)
    throw FormatError(
        fmt::format("has '{}' where a |FACT=PATTERN should follow the kind", match.substr(bar)));
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::string name = starts[i][1];
    if (std::find(facts->begin(), facts->end(), name) == facts->end())
      throw FormatError(fmt::format("names the fact '{}', which {} has not (it has: {})", name,
                                    kind, fmt::join(*facts, ", ")));
    const auto value_start = starts[i].position() + starts[i].length();
    const auto value_end =
        i + 1 < starts.size() ? static_cast<std::size_t>(starts[i + 1].position()) : match.size();
    parsed.facts.emplace_back(name, match.substr(value_start, value_end - value_start));
  }
  return parsed;
}

} // namespace

const KnownIssue *KnownIssues::Match(const std::string &signature) const {
  return Match(signature, "");
}

const KnownIssue *KnownIssues::Match(const std::string &signature, const std::string &key) const {
  const auto by_signature = ParseKeyFacts(signature);
  const auto by_key = ParseKeyFacts(key);
  std::vector<KeyFacts> candidates;
  if (by_signature && by_key && by_signature->kind == by_key->kind) {
    // One finding's facts: those its key drops (the wrapper, after a probe) are in its signature,
    // those only the key has (needs) in the key.
    KeyFacts merged = *by_key;
    merged.facts.insert(merged.facts.end(), by_signature->facts.begin(), by_signature->facts.end());
    candidates.push_back(std::move(merged));
  } else {
    for (const auto &each : {by_signature, by_key})
      if (each)
        candidates.push_back(*each);
  }
  for (const auto &issue : issues) {
    KeyFacts pattern;
    try {
      pattern = ParseMatch(issue.match);
    } catch (const FormatError &) {
      continue; // ReadKnownIssues refuses such a file; one made in code matches nothing
    }
    for (const auto &candidate : candidates)
      if (FactsMatch(pattern, candidate))
        return &issue;
  }
  return nullptr;
}

const std::vector<std::string> &ProgramOperations() {
  static const std::vector<std::string> operations = [] {
    std::vector<std::string> names = {
        // What the generator's statements end in (first_wrong.py's operation_of).
        "abs", "adaptive_avg_pool2d", "add", "add_", "addmm", "all", "amax", "amin", "any",
        "argmax", "argmin", "atan2", "avg_pool2d", "batch_norm", "bitwise_and", "bitwise_not",
        "bitwise_or", "bitwise_xor", "bmm", "cat", "clamp", "clamp_", "clone", "contiguous",
        "conv1d", "conv2d", "cummax", "cumprod", "cumsum", "diagonal", "div", "embedding", "eq",
        "erf", "exp", "expand", "flatten", "flip", "gather", "ge", "gelu", "getitem", "group_norm",
        "gt", "index_add", "index_add_", "index_put", "index_put_", "index_select", "interpolate",
        "layer_norm", "le", "linear", "log", "log1p", "log_softmax", "logcumsumexp", "logical_and",
        "logical_not", "logsumexp", "lt", "masked_fill", "matmul", "max_pool2d", "maximum", "mean",
        "minimum", "mm", "mul", "mul_", "nan_to_num", "narrow", "ne", "neg", "pad", "permute",
        "pow", "prod", "reciprocal", "relu", "repeat", "reshape", "rms_norm", "roll", "scatter_add",
        "scatter_add_", "scatter_reduce", "setitem", "sigmoid", "silu", "sin", "softmax", "sqrt",
        "square", "stack", "std", "sub", "sum", "t", "take_along_dim", "tanh", "to", "transpose",
        "tril", "triu", "unflatten", "unsqueeze", "var", "where",
        // Written by hand: torch.max(x, dim).values and torch.min(x, dim).values.
        "max", "min"};
    std::sort(names.begin(), names.end());
    return names;
  }();
  return operations;
}

const std::vector<std::string> &ProbeNames() {
  static const std::vector<std::string> probes = [] {
    // The case's own settings (ProbeSettings), then the knobs.
    std::set<std::string> names = {
        "block_mask", "compile_scope", "compile_with",         "cpp_wrapper", "dtype",
        "dynamic",    "layout",        "separate_full_blocks", "shape"};
    for (const auto &knob : InductorKnobTable())
      names.insert(std::string(knob.name));
    return std::vector<std::string>(names.begin(), names.end());
  }();
  return probes;
}

namespace {

// Whether `pattern` names something of `names`: itself, or with a `*`, a name it matches.
bool NamesOneOf(const std::string &pattern, const std::vector<std::string> &names) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string &name) { return support::GlobMatches(pattern, name); });
}

// FormatError when `first`'s OP (the text before its "(") names no operation of a program.
void CheckFirst(const std::string &pattern) {
  const auto open = pattern.find('(');
  if (open == std::string::npos && pattern.find('*') != std::string::npos)
    return; // `amax*`, `*int8*`: where the operation ends is not said
  const std::string op = pattern.substr(0, open);
  if (op.empty() || op == "*" || NamesOneOf(op, ProgramOperations()))
    return;
  throw FormatError(fmt::format("has first={}, whose operation '{}' no tensor program has (first "
                                "is OP(DTYPES)->DTYPE; the operations: {})",
                                pattern, op, fmt::join(ProgramOperations(), ", ")));
}

// FormatError when a setting of `needs` (SETTING=VALUE or SETTING>1, comma-separated) names
// no probe.
void CheckNeeds(const std::string &pattern) {
  std::size_t start = 0;
  while (start <= pattern.size()) {
    const auto comma = std::min(pattern.find(',', start), pattern.size());
    const std::string setting = pattern.substr(start, comma - start);
    start = comma + 1;
    const auto end = setting.find_first_of("=>");
    if (setting.empty() || (end == std::string::npos && setting.find('*') != std::string::npos))
      continue;
    const std::string probe = setting.substr(0, end);
    if (probe == "*" || (!probe.empty() && NamesOneOf(probe, ProbeNames())))
      continue;
    throw FormatError(fmt::format("has needs={}, whose probe '{}' does not exist (needs lists "
                                  "PROBE=VALUE,...; the probes: {})",
                                  pattern, probe, fmt::join(ProbeNames(), ", ")));
  }
}

} // namespace

void ValidateKnownIssueMatch(const std::string &match) {
  for (const auto &[fact, pattern] : ParseMatch(match).facts) {
    if (fact == "first")
      CheckFirst(pattern);
    else if (fact == "needs")
      CheckNeeds(pattern);
  }
}

namespace {

const RecordFields<KnownIssue> &KnownIssueFields() {
  static const RecordFields<KnownIssue> fields = {
      MemberField("id", &KnownIssue::id),
      MemberField("match", &KnownIssue::match),
      MemberField("status", &KnownIssue::status),
      MemberField("link", &KnownIssue::link),
      MemberField("title", &KnownIssue::title),
      CustomField<KnownIssue>(
          "reduced",
          [](const KnownIssue &issue) {
            return issue.reduced.empty() ? AbsentField() : FieldJson(issue.reduced);
          },
          [](FieldReader &reader, const std::string &key, KnownIssue &issue) {
            if (const auto *reduced = reader.Optional(key)) {
              if (!reduced->is_string())
                throw FormatError(fmt::format("{} must be a string", reader.Label(key)));
              issue.reduced = reduced->get<std::string>();
            }
          })};
  return fields;
}

const RecordFields<KnownIssues> &KnownIssuesFields() {
  static const RecordFields<KnownIssues> fields = {
      CustomField<KnownIssues>(
          "format_version",
          [](const KnownIssues &) { return nlohmann::json(kKnownIssuesFormatVersion); },
          [](FieldReader &reader, const std::string &key, KnownIssues &) {
            const auto version = reader.Integer(key, 0);
            if (version != kKnownIssuesFormatVersion)
              throw FormatError(fmt::format("format_version is {}; this build reads {}", version,
                                            kKnownIssuesFormatVersion));
          }),
      ListField("issues", &KnownIssues::issues, &KnownIssueFields)};
  return fields;
}

} // namespace

void WriteKnownIssues(const std::filesystem::path &path, const KnownIssues &known) {
  support::WriteFileAtomically(
      path, WriteFields<nlohmann::ordered_json>(KnownIssuesFields(), known).dump(2) + "\n");
}

KnownIssues ReadKnownIssues(const std::filesystem::path &path) {
  const auto document = ReadJsonDocument(path, "known-issues file", "fix it or pass another");
  try {
    FieldReader reader(document, "", "the known-issues file");
    KnownIssues known;
    ReadFields(KnownIssuesFields(), reader, known);
    // What the fields hold, each issue's status first: the first mistake a person makes.
    for (std::size_t i = 0; i < known.issues.size(); ++i) {
      const KnownIssue &issue = known.issues[i];
      const auto label = [i](const char *field) {
        return fmt::format("field 'issues[{}].{}'", i, field);
      };
      if (!IsKnownIssueStatus(issue.status))
        throw FormatError(fmt::format("{} is '{}'; use one of {}", label("status"), issue.status,
                                      fmt::join(KnownIssueStatuses(), ", ")));
      if (issue.match.empty() || issue.match == "*")
        throw FormatError(fmt::format("{} would match every finding", label("match")));
      try {
        ValidateKnownIssueMatch(issue.match);
      } catch (const FormatError &error) {
        throw FormatError(fmt::format("{} of '{}' {}", label("match"), issue.id, error.what()));
      }
    }
    return known;
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

} // namespace corpus
