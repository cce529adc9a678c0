#include "fuzzer/campaign/issue_draft.h"
#include "fuzzer/campaign/draft_output.h"

#include "corpus/api_row.h"
#include "corpus/bug_key.h"
#include "corpus/case.h"
#include "corpus/finding_kinds.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "support/version.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string Expected(std::optional<corpus::FindingKind> kind, const std::string &api) {
  return corpus::ExpectedBehaviour(corpus::RowOf(kind.value_or(corpus::FindingKind::kException)),
                                   api);
}

// The row of a draft's kind; none for a known issue whose match names no finding kind.
const corpus::FindingKindRow *RowOfDraft(const IssueDraftParts &parts) {
  return parts.kind ? &corpus::RowOf(*parts.kind) : nullptr;
}

std::string Versions(const json &env) {
  if (env.contains("error"))
    return fmt::format("(the environment could not be read: {})\n", env.value("error", ""));
  auto field = [&](const char *key) {
    const auto found = env.find(key);
    if (found == env.end())
      return std::string("?");
    return found->is_string() ? found->get<std::string>() : found->dump();
  };
  return fmt::format("PyTorch version: {} (git {})\nIs CUDA available: {}\nOS: {}\nPython "
                     "version: {}\nPython platform: {}\nCPU: {}\nCPU capability (ATen): {}\n"
                     "torch.get_num_threads(): {}\nC++ compiler used by Inductor: {}\n",
                     field("torch"), field("torch_git"), field("cuda_available"), field("os"),
                     field("python"), field("platform"), field("cpu"), field("cpu_capability"),
                     field("threads"), field("compiler"));
}

std::string ReadIfThere(const fs::path &path) {
  if (!fs::exists(path))
    return "";
  return support::ReadTextFile(path, "stored file", std::size_t{1} << 20);
}

std::string ApiOf(const fs::path &case_file) {
  try {
    if (fs::exists(case_file))
      return corpus::LoadCaseFile(case_file).api;
  } catch (const support::InputError &) {
  }
  return "flex_attention";
}

// What a tensor program calls, from the repro's `def program(...)`: "torch.mm", ".sum", ...
// in the order of their first call.
std::vector<std::string> ProgramCalls(const std::string &repro) {
  std::vector<std::string> calls;
  bool inside = false;
  static const std::regex call(R"((torch(?:\.[A-Za-z_]\w*)+|\.[A-Za-z_]\w*)\()");
  for (const auto &line : TextLines(repro)) {
    if (line.starts_with("def "))
      inside = line.starts_with("def program(");
    else if (!line.empty() && line[0] != ' ')
      inside = false;
    if (!inside)
      continue;
    for (std::sregex_iterator at(line.begin(), line.end(), call), end; at != end; ++at)
      if (std::find(calls.begin(), calls.end(), (*at)[1].str()) == calls.end())
        calls.push_back((*at)[1].str());
  }
  return calls;
}

// How the draft names what is compiled: the API, or for an API whose function is a program of
// tensors (corpus/api_row.h: a tensor program) what the program calls; `function` is the name
// the expected behaviour gives it.
struct Subject {
  std::string title;
  std::string sentence;
  std::string function;
};

Subject SubjectOf(const IssueDraftParts &parts) {
  if (!corpus::CorpusApiOf(parts.api).program)
    return {parts.api, fmt::format("`torch.compile` of `{}`", parts.api), parts.api};
  const auto calls = ProgramCalls(parts.repro);
  std::string title = "a function of tensors", listed;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (i < 2) // the title's room: "program of torch.mm, .sum, ..."
      title = (i ? title + ", " : "program of ") + calls[i];
    listed += fmt::format("{}`{}`", i ? ", " : " (it calls ", calls[i]);
  }
  if (calls.size() > 2)
    title += ", ...";
  return {title, "`torch.compile` of a function of tensors" + (listed.empty() ? "" : listed + ")"),
          "program"};
}

// Whether a program draws random numbers, which Inductor draws differently from eager.
bool DrawsRandomNumbers(const IssueDraftParts &parts) {
  if (!corpus::CorpusApiOf(parts.api).program)
    return false;
  for (const auto &call : ProgramCalls(parts.repro))
    for (const char *random : {"rand", "dropout", "bernoulli", "multinomial", "normal_"})
      if (call.find(random) != std::string::npos)
        return true;
  return false;
}

// What the repro sets, from its `config = {...}` line (only what the case changes from
// Inductor's defaults) and its dtype: "cpp.simdlen=256, bfloat16".
std::string SettingsOf(const std::string &repro) {
  std::string settings;
  for (const auto &line : TextLines(repro)) {
    if (line.starts_with("config = {")) {
      std::string items = line.substr(10, line.rfind('}') - 10);
      std::size_t start = 0;
      while (start < items.size()) {
        auto end = items.find(", \"", start);
        if (end == std::string::npos)
          end = items.size();
        std::string item = items.substr(start, end - start);
        start = end + 2;
        const auto colon = item.find("\": ");
        if (colon == std::string::npos)
          continue;
        const std::string name = item.substr(item.find('"') + 1, colon - item.find('"') - 1);
        if (name == "force_disable_caches")
          continue;
        settings +=
            fmt::format("{}{}={}", settings.empty() ? "" : ", ", name, item.substr(colon + 3));
      }
    }
    for (const char *dtype : {"bfloat16", "float16", "float64"})
      if (line.find(std::string(".to(torch.") + dtype + ")") != std::string::npos &&
          settings.find(dtype) == std::string::npos)
        settings += (settings.empty() ? "" : ", ") + std::string(dtype);
  }
  return settings;
}

// A key's or a match's fact as words: wildcards and placeholders a reader does not need go.
std::string FactWords(std::string value) {
  for (const std::string noise : {"<path>:<N>, "})
    for (auto at = value.find(noise); at != std::string::npos; at = value.find(noise))
      value.erase(at, noise.size());
  // A match's * stands for any text, but a C++ message's pointer types have stars of their own
  // ('accum_t*', 'bool*'): a star after a name and before a quote or a brace is C++.
  std::string words;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const bool after_name = i > 0 && (std::isalnum(static_cast<unsigned char>(value[i - 1])) ||
                                      value[i - 1] == '_' || value[i - 1] == '>');
    const bool before_end =
        i + 1 < value.size() && std::string("'}").find(value[i + 1]) != std::string::npos;
    if (value[i] != '*' || (after_name && before_end))
      words += value[i];
    else if (!words.ends_with("..."))
      words += "...";
  }
  value = words;
  while (value.ends_with("...") || value.ends_with(' ') || value.ends_with(','))
    value.erase(value.size() - (value.ends_with("...") ? 3 : 1));
  while (value.starts_with("..."))
    value.erase(0, 3);
  return value;
}

std::string FactOf(const corpus::KeyFacts &facts, std::string_view name) {
  for (const auto &[fact, value] : facts.facts)
    if (fact == name)
      return FactWords(value);
  return "";
}

// The repro's comparison, for the checklist: torch.testing's default tolerances, or the ones
// it passes.
std::string Tolerances(const std::string &repro) {
  static const std::regex given(R"((atol|rtol)=([0-9.e+-]+|atol))");
  std::string found;
  for (std::sregex_iterator it(repro.begin(), repro.end(), given), end; it != end; ++it)
    if (found.find((*it)[1].str() + "=") == std::string::npos)
      found += (found.empty() ? "" : ", ") + it->str();
  return found;
}

struct Checklist {
  std::string text;
  bool holds = false; // every point of PyTorch's list holds: the draft may carry `topic: fuzzer`
};

// PyTorch's torch.compile bug template asks fuzzer-found reports for default tolerances, no
// compared indices of max/min, a higher-precision baseline and the same random numbers on both
// sides; each point filled in from what the repro does.
Checklist FuzzerChecklist(const IssueDraftParts &parts) {
  Checklist list;
  const auto *row = RowOfDraft(parts);
  const bool compares = row && row->compares_values;
  const std::string tolerances = Tolerances(parts.repro);
  const bool default_tolerances = !compares || tolerances.empty();
  const bool reference = !compares || !parts.reference.empty();
  const auto item = [&](bool done, const std::string &text) {
    list.text += fmt::format("- [{}] {}\n", done ? "x" : " ", text);
  };
  item(default_tolerances,
       !compares ? "Tolerances: no values are compared; the compiled call itself fails."
       : tolerances.empty()
           ? "Tolerances: `torch.testing.assert_close`'s defaults."
           : fmt::format("Tolerances: the repro passes {} to `torch.testing.assert_close`, not its "
                         "defaults (the oracle's per-dtype limits for flex_attention).",
                         tolerances));
  item(true, "No indices of max/min are compared.");
  item(reference, !compares ? "Higher-precision baseline: not needed, nothing is compared."
                  : parts.reference.empty()
                      ? "Higher-precision baseline: not run for this finding."
                      : "Higher-precision baseline: compiled against a float64 reference, as "
                        "inductor-fuzz's oracle compared it: " +
                            WithPlaceholders(parts.reference));
  const bool random = DrawsRandomNumbers(parts);
  if (corpus::CorpusApiOf(parts.api).program)
    item(!random, random ? "Random numbers: the program draws some, which Inductor draws "
                           "differently from eager: rerun with "
                           "`torch._inductor.config.fallback_random = True` before filing."
                         : "Random numbers: the program draws none; its inputs are the literal "
                           "tensors of the repro, copied for eager and for compiled, so "
                           "`fallback_random` does not apply.");
  else
    item(true, "Random numbers: the compiled function draws none; its inputs come from a seeded "
               "`torch.Generator` outside it, the same for eager and compiled, so "
               "`fallback_random` does not apply.");
  list.holds = default_tolerances && reference && !random;
  return list;
}

std::string Labels(const IssueDraftParts &parts, bool fuzzer_topic) {
  std::vector<std::string> labels = {"oncall: pt2", "module: inductor", "oncall: cpu inductor"};
  if (const std::string_view label = corpus::CorpusApiOf(parts.api).issue_label; !label.empty())
    labels.emplace_back(label);
  if (parts.repro.find("aoti_compile_and_package") != std::string::npos)
    labels.push_back("module: aotinductor");
  if (parts.release_label.starts_with("regression"))
    labels.push_back("module: regression");
  if (fuzzer_topic)
    labels.push_back("topic: fuzzer");
  std::string text;
  for (const auto &label : labels)
    text += (text.empty() ? "`" : ", `") + label + "`";
  return text;
}

// The line a reader checks first: for a process that dies, how it ended; for an exception its
// type and message; else the first line of what shows the bug.
std::string Actual(const IssueDraftParts &parts, const std::string &shown) {
  const auto *row = RowOfDraft(parts);
  const bool dies = (row && row->ends_the_process) || parts.how.starts_with("killed by signal");
  // "killed by signal 11 (Segmentation fault): <its last line>": the last line is often a warning
  // the process printed before it died, not the failure.
  if (dies && !parts.how.empty())
    return parts.how.substr(0, parts.how.starts_with("killed by signal") ? parts.how.find("): ") + 1
                                                                         : std::string::npos);
  // An exception is quoted by its type and message, never by a frame of its traceback; a
  // build that fails inside Inductor too, when no compiler's error line shows it.
  if (row && (row->draft_excerpt == corpus::DraftExcerpt::kException ||
              (row->draft_excerpt == corpus::DraftExcerpt::kCompileError &&
               shown.find(" error: ") == std::string::npos)))
    if (std::string line = ExceptionLine(parts.output); !line.empty())
      return line;
  if (row && row->compares_values) {
    std::string joined;
    for (const auto &line : TextLines(shown))
      if (line.find("Mismatched") != std::string::npos ||
          line.find("Greatest") != std::string::npos)
        joined += (joined.empty() ? "" : "; ") + line;
    if (!joined.empty())
      return joined;
  }
  for (const auto &line : TextLines(shown))
    if (line.find("error") != std::string::npos || line.find("Error") != std::string::npos ||
        line.find("ERROR") != std::string::npos) // a sanitizer's "==7==ERROR: AddressSanitizer"
      return line.substr(0, 300);
  const auto lines = TextLines(shown);
  return lines.empty() ? "" : lines.back().substr(0, 300);
}

// Why a delivered repro gets no draft, whatever its kind: it is unfinished or does not fail.
std::optional<std::string> WhyTheReproGetsNoDraft(const corpus::Delivery &delivery) {
  if (corpus::ReductionUnfinished(delivery))
    return fmt::format("its repro is {} lines, more than {}, when the reduction's time ran out: "
                       "the next delivery goes on reducing it",
                       delivery.repro_lines, corpus::kDraftReproLines);
  if (!delivery.reproduces_standalone)
    return "not reproduced standalone: its repro.py does not fail on its own (" +
           (delivery.standalone_how.empty() ? std::string("not run") : delivery.standalone_how) +
           "); the next delivery tries again";
  return std::nullopt;
}

} // namespace

// What fails, in a few words, from the bug's key (or a known issue's match): the kind's words
// and the facts that tell this bug from another of its kind.
std::string FailureFromKey(const std::string &key) {
  // A key's first field is the key's kind, which need not be a finding kind ("missing-symbol"
  // is an undefined symbol's, whoever saw it): read from the key, not from the finding.
  const auto facts = corpus::ParseKeyFacts(key);
  const auto *row = facts ? corpus::RowOfName(facts->kind) : nullptr;
  if (!row)
    return "";
  std::map<std::string, std::string> words_of;
  for (const auto &[name, value] : facts->facts)
    words_of.emplace(name, FactWords(value)); // the first of a fact named twice, as FactOf
  std::string words =
      row->title_words ? row->title_words(row->title, words_of) : std::string(row->title);
  if (const auto needs = FactOf(*facts, "needs"); !needs.empty())
    words += " with " + needs;
  return words;
}

// "[inductor][cpu] API: what fails", cut at a word to at most kTitleLength characters.
std::string DraftTitle(const std::string &api, const std::string &failure) {
  std::string title = fmt::format("[inductor][cpu] {}: {}", api, failure);
  if (title.size() > kTitleLength) {
    title = title.substr(0, kTitleLength - 3);
    if (const auto space = title.rfind(' '); space != std::string::npos && space > 30)
      title = title.substr(0, space);
    while (!title.empty() && std::string(",:;(").find(title.back()) != std::string::npos)
      title.pop_back();
    title += "...";
  }
  return title;
}

std::string RenderIssueDraft(const IssueDraftParts &parts) {
  const std::size_t repro_lines = TextLines(parts.repro).size();
  const std::string torch = parts.environment.value("torch", "");
  const std::string with = parts.settings.empty() ? "" : " with " + parts.settings;
  const std::string shown = OutputThatShowsTheBug(parts.output, parts.kind);
  const Subject subject = SubjectOf(parts);
  std::string out =
      fmt::format("# {}\n\n### 🐛 Describe the bug\n\n", DraftTitle(subject.title, parts.failure));
  out += "<!-- Your own words first: what you were doing, what you know of the cause. Everything "
         "below this comment was generated by inductor-fuzz (see the end). -->\n\n";
  out += fmt::format("{} on CPU{}: {}. A standalone repro ({} lines, needs "
                     "only torch):\n\n```python\n{}{}```\n\n",
                     subject.sentence, with, parts.failure, repro_lines, parts.repro,
                     parts.repro.ends_with('\n') ? "" : "\n");
  // Notes that say what is expected and what happens (a known issue's expected.md) replace the
  // generic lines.
  const bool notes_say_it = parts.notes.find("**Expected") != std::string::npos;
  if (!notes_say_it) {
    out += fmt::format("**Expected:** {}\n\n", Expected(parts.kind, subject.function));
    const std::string actual = Actual(parts, shown);
    out += fmt::format("**Actual:** {}\n\n", actual.empty() ? parts.failure : "`" + actual + "`");
  }
  if (!parts.releases.empty()) {
    std::string runs;
    for (const auto &run : parts.releases)
      runs += fmt::format("{}{} on {}", runs.empty() ? "" : "; ", run.result, run.torch);
    // The label says it where bisect ran ("regression since 2.7.1 (passes on 2.6.0)").
    out += fmt::format("**Releases:** {}.\n\n",
                       parts.release_label.empty() ? runs : parts.release_label);
  }
  if (!parts.notes.empty())
    out += WithPlaceholders(parts.notes) + (parts.notes.ends_with('\n') ? "\n" : "\n\n");
  if (!shown.empty())
    out += fmt::format("### Error logs\n\nWhat the repro printed{} that shows the bug (paths "
                       "shortened):\n\n```\n{}```\n\n",
                       torch.empty() ? "" : " on torch " + torch, shown);
  const Checklist checklist = FuzzerChecklist(parts);
  out += fmt::format("<details><summary>The fuzzer checklist of PyTorch's bug template</summary>"
                     "\n\n{}\n</details>\n\n",
                     checklist.text);
  out += fmt::format("**Suggested labels:** {}\n\n", Labels(parts, checklist.holds));
  out += fmt::format("<sub>This draft was generated by inductor-fuzz{} from a fuzzer finding "
                     "({}; signature `{}`). The tool files nothing; the reporter reviewed it "
                     "and wrote what is above the comment at the top.</sub>\n\n",
                     parts.tool_version.empty() ? "" : " " + parts.tool_version,
                     WithPlaceholders(parts.provenance), parts.signature);
  out += fmt::format("### Versions\n\n```\n{}```\n", Versions(parts.environment));
  return out;
}

std::optional<std::string> WhyNoDraft(const corpus::Delivery &delivery, corpus::FindingKind kind) {
  if (corpus::RowOf(kind).detector == corpus::Detector::kMatrix)
    return std::string("a compiler divergence: its repro is reduced/repro.sh, which builds the "
                       "kernel with each compiler; no PyTorch draft");
  return WhyTheReproGetsNoDraft(delivery);
}

std::optional<std::string> WhyNoDraft(const corpus::Delivery &delivery) {
  if (const auto *row = corpus::RowOfSignature(delivery.signature))
    return WhyNoDraft(delivery, row->kind);
  return WhyTheReproGetsNoDraft(delivery);
}

std::string IssueDraft(const corpus::StoredFinding &finding, const corpus::Delivery &delivery,
                       const std::string &notes) {
  const fs::path reduced = finding.folder / "reduced";
  const bool has_reduced = fs::exists(reduced / "repro.py");
  const fs::path repro = has_reduced ? reduced / "repro.py" : finding.smallest / "repro.py";
  std::string provenance = fmt::format("{} hit(s)", finding.HitCount());
  if (!finding.hits.empty()) {
    const auto &hit = finding.hits.front();
    provenance =
        fmt::format("case {} of `{}`, {} hit(s)", hit.case_name,
                    hit.provenance.is_object() ? hit.provenance.value("command_line", "") : "",
                    finding.HitCount());
  }
  if (!has_reduced)
    provenance +=
        "; NOT reduced: " + (delivery.detail.empty()
                                 ? std::string(corpus::DeliveryStatusName(delivery.status))
                                 : delivery.detail);
  std::string failure = FailureFromKey(corpus::BugKey(finding.finding));
  return RenderIssueDraft(
      {.api = ApiOf(has_reduced ? reduced / "case.json" : finding.smallest / "case.json"),
       .settings = SettingsOf(ReadIfThere(repro)),
       .failure = failure.empty() ? finding.finding.summary : failure,
       .how = delivery.standalone_how,
       .kind = finding.finding.kind,
       .repro = ReadIfThere(repro),
       .output = delivery.standalone_output,
       .reference =
           finding.finding.kind == corpus::FindingKind::kWrongResult ? finding.finding.summary : "",
       .releases = delivery.releases,
       .release_label = delivery.release_label,
       .environment = delivery.environment,
       .signature = finding.signature,
       .provenance = provenance,
       .tool_version = delivery.tool_version,
       .notes = notes});
}

std::string KnownIssueDraft(const corpus::KnownIssue &issue, const fs::path &root,
                            const corpus::Delivery &run, const std::string &more_notes) {
  const fs::path folder = root / issue.reduced;
  if (issue.reduced.empty() || !fs::exists(folder / "repro.py"))
    throw support::InputError(
        fmt::format("known issue {} names no reduced folder with a repro.py (field 'reduced' in "
                    "known-issues.json): reduce it first (inductor-fuzz reduce) and set the field",
                    issue.id));
  std::vector<corpus::ReleaseRun> releases = run.releases;
  std::string label = run.release_label;
  if (const auto file = folder / "releases.json"; releases.empty() && fs::exists(file)) {
    try {
      const json document = json::parse(ReadIfThere(file));
      for (const auto &entry : document.value("releases", json::array()))
        releases.push_back({.torch = entry.value("torch", ""),
                            .venv = entry.value("venv", ""),
                            .result = entry.value("result", ""),
                            .how = entry.value("how", "")});
      label = document.value("label", label);
    } catch (const json::exception &error) {
      throw support::InputError(
          fmt::format("{} is not JSON ({}): fix or delete it", file.string(), error.what()));
    }
  }
  // The match says what fails; an entry whose match says little falls back on its title's first
  // clause, without the "torch 2.15.0:" prefix the entries carry.
  std::string failure = FailureFromKey(issue.match);
  if (failure.empty()) {
    failure = issue.title.substr(0, std::min(issue.title.find(". "), issue.title.find("; ")));
    if (failure.starts_with("torch ") && failure.find(": ") != std::string::npos)
      failure = failure.substr(failure.find(": ") + 2);
  }
  // A known issue exists only as text: its kind is read once from its match.
  const auto *row = corpus::RowOfSignature(issue.match);
  const auto kind = row ? std::optional(row->kind) : std::nullopt;
  std::string notes = ReadIfThere(folder / "expected.md");
  if (!issue.link.empty())
    notes += fmt::format("\nRelated: {}\n", issue.link);
  if (!more_notes.empty())
    notes += (notes.empty() ? "" : "\n") + more_notes;
  const std::string repro = ReadIfThere(folder / "repro.py");
  return RenderIssueDraft({.api = ApiOf(folder / "case.json"),
                           .settings = SettingsOf(repro),
                           .failure = failure,
                           .how = run.standalone_how,
                           .kind = kind,
                           .repro = repro,
                           .output = run.standalone_output,
                           .releases = releases,
                           .release_label = label,
                           .environment = run.environment,
                           .signature = issue.match,
                           .provenance = fmt::format("known issue `{}` ({}), {}", issue.id,
                                                     issue.status, issue.reduced),
                           .tool_version = support::ToolVersion(),
                           .notes = notes});
}

} // namespace fuzzer::campaign
