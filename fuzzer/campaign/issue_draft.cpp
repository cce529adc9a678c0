#include "fuzzer/campaign/issue_draft.h"

#include "corpus/case.h"
#include "corpus/finding_kinds.h"
#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>
#include <vector>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string LastLines(const std::string &text, std::size_t count) {
  const auto lines = Lines(text);
  std::string kept;
  for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
    kept += lines[i] + "\n";
  return kept;
}

// The line of the output a reader looks for first.
std::string Headline(const std::string &output, const std::string &kind) {
  const auto lines = Lines(output);
  if (kind == "wrong-result") {
    std::string found;
    for (const auto &line : lines)
      if (line.find("Mismatched elements") != std::string::npos ||
          line.find("Greatest absolute difference") != std::string::npos ||
          line.find("Greatest relative difference") != std::string::npos)
        found += (found.empty() ? "" : "; ") + line.substr(line.find_first_not_of(' '));
    if (!found.empty())
      return found;
  }
  if (kind == "compile-error")
    for (const auto &line : lines)
      if (line.find("error:") != std::string::npos)
        return line.substr(0, 300);
  // The exception line (Python's hints after it, "Set TORCHDYNAMO_VERBOSE=1 ...", are not it).
  static const std::regex exception_line(
      R"(^[A-Za-z_][\w.]*(Error|Exception|Failure|Interrupt)\b.*)");
  for (auto line = lines.rbegin(); line != lines.rend(); ++line)
    if (std::regex_match(*line, exception_line))
      return line->substr(0, 300);
  for (auto line = lines.rbegin(); line != lines.rend(); ++line)
    if (!line->empty() && line->find_first_not_of(' ') != std::string::npos)
      return line->substr(0, 300);
  return "";
}

std::string Expected(const std::string &kind, const std::string &api) {
  const auto *row = corpus::RowOfName(kind);
  return corpus::ExpectedBehaviour(row ? *row : corpus::RowOf(corpus::FindingKind::kException),
                                   api);
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

// What the repro sets, from its `config = {...}` line (only what the case changes from
// Inductor's defaults) and its dtype: "cpp.simdlen=256, bfloat16".
std::string SettingsOf(const std::string &repro) {
  std::string settings;
  for (const auto &line : Lines(repro)) {
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

std::string Fact(const corpus::Finding &finding, const std::string &key) {
  for (const auto &[name, value] : finding.essence.facts)
    if (name == key)
      return value;
  return "";
}

// One line a maintainer reads as the failure: no module prefixes, no paths or line numbers.
std::string ShortFailure(const corpus::Finding &finding) {
  std::string text = finding.summary;
  if (text.starts_with("worker died: ")) // the tool's worker; in a report, the process
    text = "the process is " + text.substr(13);
  if (finding.kind == corpus::FindingKind::kException) {
    std::string type = Fact(finding, "type");
    type = type.substr(type.rfind('.') == std::string::npos ? 0 : type.rfind('.') + 1);
    std::string message = corpus::MessageTemplate(Fact(finding, "message"));
    // TORCH_CHECK's "function, file:line, message": the message.
    if (const auto at = message.rfind("<path>:<N>, "); at != std::string::npos)
      message = message.substr(at + 12);
    message = message.substr(0, message.find('\n'));
    if (!type.empty())
      text = type + (message.empty() ? "" : ": " + message);
  }
  if (text.size() > 140)
    text = text.substr(0, text.rfind(' ', 137)) + "...";
  return text;
}

} // namespace

std::string RenderIssueDraft(const IssueDraftParts &parts) {
  const std::size_t repro_lines = Lines(parts.repro).size();
  const std::string torch = parts.environment.value("torch", "");
  const std::string with = parts.settings.empty() ? "" : " with " + parts.settings;
  std::string out = fmt::format("# [inductor][cpu] {}{}: {}\n\n### 🐛 Describe the bug\n\n",
                                parts.api, with, parts.failure);
  out += fmt::format("`torch.compile` of `{}` on CPU{}: {}. A standalone repro ({} lines, needs "
                     "only torch):\n\n```python\n{}{}```\n\n",
                     parts.api, with, parts.failure, repro_lines, parts.repro,
                     parts.repro.ends_with('\n') ? "" : "\n");
  if (!parts.output.empty())
    out += fmt::format("Output{}:\n\n```\n{}```\n\n", torch.empty() ? "" : " on torch " + torch,
                       LastLines(parts.output, 25));
  // Notes that say what is expected and what happens (a known issue's expected.md) replace the
  // generic lines.
  const bool notes_say_it = parts.notes.find("**Expected") != std::string::npos;
  if (!notes_say_it)
    out += fmt::format("**Expected:** {}\n\n", Expected(parts.kind, parts.api));
  // A process that dies says nothing more: how it ended is the actual result.
  const bool dies =
      parts.kind == "crash" || parts.kind == "timeout" || parts.how.starts_with("killed by signal");
  const std::string actual =
      dies && !parts.how.empty() ? parts.how : Headline(parts.output, parts.kind);
  if (!notes_say_it)
    out += fmt::format("**Actual:** {}\n\n", actual.empty() ? parts.failure : "`" + actual + "`");
  if (!parts.releases.empty()) {
    std::string runs;
    for (const auto &run : parts.releases)
      runs += fmt::format("{}{} on {}", runs.empty() ? "" : "; ", run.result, run.torch);
    out += fmt::format("**Releases:** {}{}.\n\n", runs,
                       parts.release_label.empty() ? "" : " (" + parts.release_label + ")");
  }
  if (!parts.notes.empty())
    out += parts.notes + (parts.notes.ends_with('\n') ? "\n" : "\n\n");
  out += fmt::format("<sub>Found by inductor-fuzz: {}. Signature: `{}`.</sub>\n\n",
                     parts.provenance, parts.signature);
  out += fmt::format("### Versions\n\n```\n{}```\n", Versions(parts.environment));
  return out;
}

std::string IssueDraft(const corpus::StoredFinding &finding, const corpus::Delivery &delivery) {
  const fs::path reduced = finding.folder / "reduced";
  const bool has_reduced = fs::exists(reduced / "repro.py");
  const fs::path repro = has_reduced ? reduced / "repro.py" : finding.smallest / "repro.py";
  std::string provenance = fmt::format("{} hit(s)", finding.HitCount());
  if (!finding.hits.empty()) {
    const auto &hit = finding.hits.front();
    provenance =
        fmt::format("`{}` (case {}), {} hit(s), tool {}",
                    hit.provenance.is_object() ? hit.provenance.value("command_line", "") : "",
                    hit.case_name, finding.HitCount(), delivery.tool_version);
  }
  if (!has_reduced)
    provenance +=
        "; NOT reduced: " + (delivery.detail.empty()
                                 ? std::string(corpus::DeliveryStatusName(delivery.status))
                                 : delivery.detail);
  return RenderIssueDraft(
      {.api = ApiOf(has_reduced ? reduced / "case.json" : finding.smallest / "case.json"),
       .settings = SettingsOf(ReadIfThere(repro)),
       .failure = ShortFailure(finding.finding),
       .how = delivery.standalone_how,
       .kind = std::string(corpus::KindName(finding.finding.kind)),
       .repro = ReadIfThere(repro),
       .output = delivery.standalone_output,
       .releases = delivery.releases,
       .release_label = delivery.release_label,
       .environment = delivery.environment,
       .signature = finding.signature,
       .provenance = provenance,
       .notes = delivery.reproduces_standalone
                    ? ""
                    : "_The repro did not fail standalone when it was last run (" +
                          delivery.standalone_how + "); the case fails inside inductor-fuzz._"});
}

std::string KnownIssueDraft(const corpus::KnownIssue &issue, const fs::path &root,
                            const corpus::Delivery &run) {
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
  // The title's first clause, without the "torch 2.15.0:" prefix the entries carry.
  std::string failure =
      issue.title.substr(0, std::min(issue.title.find(". "), issue.title.find("; ")));
  if (failure.starts_with("torch ") && failure.find(": ") != std::string::npos)
    failure = failure.substr(failure.find(": ") + 2);
  if (failure.size() > 140)
    failure = failure.substr(0, failure.rfind(' ', 137)) + "...";
  const std::string kind = issue.match.substr(0, issue.match.find('|'));
  std::string notes = ReadIfThere(folder / "expected.md");
  if (!issue.link.empty())
    notes += fmt::format("\nRelated: {}\n", issue.link);
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
                           .notes = notes});
}

} // namespace fuzzer::campaign
