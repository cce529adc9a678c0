#include "fuzzer/campaign/reports.h"

#include "fuzzer/campaign/surface_report.h"

#include "corpus/bug_key.h"
#include "corpus/junit.h"
#include "corpus/run_record.h"
#include "corpus/sarif.h"
#include "fuzzer/campaign/issue_draft.h"
#include "support/text_file.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>

#include <unistd.h>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string Escape(const std::string &text) { return support::EscapeMarkup(text); }

bool IsNew(const ReportInput &input, const corpus::Bug &bug) {
  return std::all_of(bug.members.begin(), bug.members.end(),
                     [&](const auto &member) { return input.new_signatures.contains(member.id); });
}

// The bugs the report shows, one per known issue (JoinByKnownIssue): new first, then by hits.
std::vector<corpus::Bug> Ordered(const ReportInput &input) {
  std::vector<corpus::Bug> ordered =
      corpus::JoinByKnownIssue(corpus::GroupIntoBugs(input.findings), input.known_issues);
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto &a, const auto &b) {
    const bool new_a = IsNew(input, a), new_b = IsNew(input, b);
    if (new_a != new_b)
      return new_a;
    return a.hit_ids.size() > b.hit_ids.size();
  });
  return ordered;
}

std::string ReadOrEmpty(const fs::path &path) {
  try {
    return support::ReadTextFile(path, "stored file", std::size_t{4} << 20);
  } catch (const std::exception &) {
    return "";
  }
}

std::vector<corpus::SourceExcerpt> Excerpts(const corpus::StoredFinding &finding) {
  return finding.finding.source_lines;
}

std::string KindOf(const corpus::Bug &bug) {
  return std::string(corpus::KindName(bug.members.front().finding.kind));
}

std::string StatusOf(const ReportInput &input, const corpus::Bug &bug) {
  if (IsNew(input, bug))
    return "new";
  const auto *known = bug.Known(input.known_issues);
  if (!known)
    return "seen before";
  return "known issue " + known->id + " (" + known->status +
         (known->link.empty() ? "" : ", " + known->link) + ")";
}

// The member a campaign delivered (`fuzz --reduce`), if any.
const corpus::StoredFinding *Delivered(const corpus::Bug &bug) {
  for (const auto &member : bug.members)
    if (member.delivery && member.delivery->status != corpus::DeliveryStatus::kPending)
      return &member;
  return nullptr;
}

// Where a bug's draft is, or why it has none.
std::string DraftOrWhyNot(const corpus::StoredFinding &delivered) {
  if (const auto why = WhyNoDraft(*delivered.delivery))
    return "none: " + *why;
  return (delivered.folder / "issue.md").string();
}

std::string DeliveryLine(const corpus::Delivery &delivery) {
  std::string line = std::string(corpus::DeliveryStatusName(delivery.status));
  if (delivery.status == corpus::DeliveryStatus::kReduced ||
      delivery.status == corpus::DeliveryStatus::kTimeout)
    line += fmt::format(": {} line(s), {} standalone", delivery.repro_lines,
                        delivery.reproduces_standalone ? "fails" : "does not fail");
  if (!delivery.release_label.empty())
    line += "; " + delivery.release_label;
  if (!delivery.detail.empty())
    line += " (" + delivery.detail + ")";
  return line;
}

std::string SvgTimeline(const CampaignStats &stats) {
  const double width = 640, height = 160;
  const double seconds = std::max(1.0, stats.seconds);
  double most = 1;
  for (const auto *series : {&stats.case_timeline, &stats.feature_timeline})
    for (const auto &[at, value] : *series)
      most = std::max(most, static_cast<double>(value));
  auto polyline = [&](const std::vector<std::pair<double, std::uint64_t>> &points,
                      const char *colour) {
    std::string coordinates = fmt::format("0,{:.1f}", height);
    for (const auto &[at, value] : points)
      coordinates += fmt::format(" {:.1f},{:.1f}", at / seconds * width,
                                 height - static_cast<double>(value) / most * (height - 10));
    return fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
                       colour, coordinates);
  };
  return fmt::format(
      "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"cases, distinct findings and codegen "
      "features over time\"><rect width=\"{0}\" height=\"{1}\" fill=\"#fafafa\" "
      "stroke=\"#ccc\"/>{2}{3}{9}"
      "<text x=\"6\" y=\"14\" font-size=\"12\" fill=\"#1f6feb\">cases ({4})</text>"
      "<text x=\"6\" y=\"28\" font-size=\"12\" fill=\"#d1242f\">distinct findings ({5})</text>"
      "<text x=\"6\" y=\"42\" font-size=\"12\" fill=\"#1a7f37\">codegen features ({10}; "
      "queue {11}, {12} mutated case(s))</text>"
      "<text x=\"{6}\" y=\"{7}\" font-size=\"11\" text-anchor=\"end\">{8:.0f} s</text></svg>",
      width, height, polyline(stats.case_timeline, "#1f6feb"), polyline(stats.timeline, "#d1242f"),
      stats.cases, stats.signatures.size(), width - 4, height - 4, stats.seconds,
      polyline(stats.feature_timeline, "#1a7f37"), stats.features.size(), stats.pool_size,
      stats.mutated_cases);
}

} // namespace

std::string JunitReport(const ReportInput &input, const std::vector<corpus::Bug> &bugs) {
  // A testcase per bug, failing when it is new; what is known about the others goes to
  // system-out, one line each.
  corpus::JunitSuite suite{.name = "inductor-fuzz campaign"};
  std::string known_lines;
  for (const auto &bug : bugs) {
    const corpus::StoredFinding &lead = bug.members.front();
    const std::string kind = KindOf(bug);
    auto &testcase = suite.cases.emplace_back(
        corpus::JunitCase{.classname = "inductor-fuzz." + kind, .name = bug.id});
    if (!IsNew(input, bug)) {
      known_lines +=
          fmt::format("{}: {}: {}\n", bug.id, StatusOf(input, bug), fmt::join(bug.keys, "; "));
      continue;
    }
    std::string signatures;
    for (const auto &member : bug.members)
      signatures += fmt::format("signature: {} ({} hit(s))\n", member.signature, member.HitCount());
    const corpus::StoredFinding *delivered = Delivered(bug);
    const std::string reduced =
        delivered ? fmt::format("\nreduced: {}\nreduced repro: {}\nissue draft: {}",
                                DeliveryLine(*delivered->delivery),
                                (delivered->folder / "reduced" / "repro.py").string(),
                                DraftOrWhyNot(*delivered))
                  : "";
    testcase.failure = corpus::JunitFailure{
        .message = lead.finding.summary,
        .type = kind,
        .text = fmt::format("{}\nkey: {}\n{}hits: {}\nrepro: {}{}", lead.finding.message, bug.key,
                            signatures, bug.hit_ids.size(), (lead.smallest / "repro.py").string(),
                            reduced)};
  }
  auto &properties = suite.properties.emplace();
  for (const auto &[key, value] : input.provenance.items())
    properties.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  char host[256] = {};
  suite.hostname = ::gethostname(host, sizeof host - 1) == 0 && host[0] ? host : "localhost";
  // When the campaign started, in the XSD's form: UTC without a zone or fractions.
  const std::time_t started =
      std::time(nullptr) - static_cast<std::time_t>(std::max(0.0, input.stats.seconds));
  std::tm utc{};
  ::gmtime_r(&started, &utc);
  suite.timestamp = fmt::format("{:%Y-%m-%dT%H:%M:%S}", utc);
  suite.seconds = input.stats.seconds;
  suite.system_out = known_lines;
  return corpus::JunitXml(suite);
}

json SarifReport(const ReportInput &input, const std::vector<corpus::Bug> &bugs) {
  std::vector<corpus::SarifResult> results;
  const auto location = [](const corpus::SourceExcerpt &excerpt) {
    return corpus::SarifLocation{
        .path = excerpt.file, .line = std::max(1u, excerpt.line), .snippet = excerpt.text};
  };
  for (const auto &bug : bugs) {
    const corpus::StoredFinding &lead = bug.members.front();
    corpus::SarifResult result{.rule = KindOf(bug),
                               .level = IsNew(input, bug) ? "error" : "note",
                               .message = lead.finding.summary.empty() ? lead.signature
                                                                       : lead.finding.summary,
                               .signature = lead.signature,
                               .bug_key = bug.key,
                               .properties = {{"id", bug.id},
                                              {"signatures", bug.Signatures()},
                                              {"detectors", bug.detectors},
                                              {"hits", bug.hit_ids.size()},
                                              {"new", IsNew(input, bug)}}};
    for (const auto &excerpt : Excerpts(lead))
      result.locations.push_back(location(excerpt));
    if (result.locations.empty() && !lead.smallest.empty())
      result.locations.push_back({.path = (lead.smallest / "case.json").string()});
    // The evidence of the other detectors and signatures of the same bug.
    for (std::size_t i = 1; i < bug.members.size(); ++i)
      for (const auto &excerpt : Excerpts(bug.members[i])) {
        auto other = location(excerpt);
        other.message = bug.members[i].signature;
        result.related.push_back(other);
      }
    if (const auto *delivered = Delivered(bug)) {
      result.properties["reduced"] = DeliveryLine(*delivered->delivery);
      result.properties["releases"] = delivered->delivery->release_label;
      if (const auto why = WhyNoDraft(*delivered->delivery))
        result.properties["noIssueDraft"] = *why;
      else
        result.properties["issueDraft"] = (delivered->folder / "issue.md").string();
    }
    results.push_back(std::move(result));
  }
  return corpus::SarifLog(input.provenance.value("tool_version", ""), results);
}

namespace {

// The campaign against the corpus it started from (another night's): what is new since.
// Where the cases' time went (CampaignStats::time_by_family): one row per family and a total,
// one column per stage, seconds and the share of the family's wall time.
std::string TimeTableHtml(const CampaignStats &stats) {
  if (stats.time_by_family.empty())
    return "";
  static const std::vector<std::string> kColumns = {
      "generate",         "run",          "eager",   "dynamo_inductor",
      "cpp_compile",      "compare",      "probe",   "matrix",
      "sanitizer_reruns", "worker_start", "analysis"};
  std::map<std::string, double> total;
  std::string rows;
  const auto row = [&](const std::string &name, const std::map<std::string, double> &times) {
    const double wall = times.contains("wall") ? times.at("wall") : 0;
    std::string cells;
    for (const auto &column : kColumns) {
      const double seconds = times.contains(column) ? times.at(column) : 0;
      cells += wall > 0 ? fmt::format("<td>{:.0f} s ({:.0f}%)</td>", seconds, 100 * seconds / wall)
                        : fmt::format("<td>{:.0f} s</td>", seconds);
    }
    const double cases = times.contains("cases") ? times.at("cases") : 0;
    rows += fmt::format("<tr><td>{}</td><td>{:.0f}</td><td>{:.0f} s</td>{}</tr>\n", Escape(name),
                        cases, wall, cells);
  };
  for (const auto &[family, times] : stats.time_by_family) {
    row(family, times);
    for (const auto &[stage, seconds] : times)
      total[stage] += seconds;
  }
  row("all", total);
  std::string header;
  for (const auto &column : kColumns)
    header += "<th>" + column + "</th>";
  return fmt::format("<h2>Where the time went</h2>\n<p>Seconds of the cases' wall time by stage "
                     "(run holds eager, dynamo_inductor, cpp_compile and compare; analysis "
                     "overlaps the next case's run).</p>\n<table id=\"time\"><thead><tr><th>"
                     "family</th><th>cases</th><th>wall</th>{}</tr></thead><tbody>\n{}</tbody>"
                     "</table>\n",
                     header, rows);
}

std::string SinceLine(const json &since) {
  if (!since.is_object())
    return "";
  return fmt::format(
      "\n<p id=\"since\">Since the corpus it started from ({} campaign(s), {} bug(s), {} "
      "feature(s)): {} new bug(s), {} seen again, {} new feature(s).</p>",
      since.value("campaigns_before", json::array()).size(), since.value("bugs_before", 0),
      since.value("features_before", 0), since.value("new_bugs", json::array()).size(),
      since.value("seen_again", json::array()).size(),
      since.value("new_features", json::array()).size());
}

} // namespace

// A bug's key; a bug joined from the corpus's bugs of one known issue has their keys and ids.
std::string KeysHtml(const corpus::Bug &bug) {
  if (bug.joined.size() < 2)
    return fmt::format("<p><b>key</b> <code>{}</code></p>", Escape(bug.key));
  std::string keys;
  for (const auto &key : bug.keys)
    keys += fmt::format("<li><code>{}</code></li>", Escape(key));
  return fmt::format("<p class=\"joined\"><b>keys</b> of the {} bugs of known issue {} ({}), one "
                     "bug here</p><ul>{}</ul>",
                     bug.joined.size(), Escape(bug.known_issue),
                     Escape(fmt::format("{}", fmt::join(bug.joined, ", "))), keys);
}

std::string HtmlReport(const ReportInput &input, const std::vector<corpus::Bug> &bugs) {
  const auto &stats = input.stats;
  std::string rows, details;
  const auto fresh = std::count_if(bugs.begin(), bugs.end(),
                                   [&](const corpus::Bug &bug) { return IsNew(input, bug); });
  for (const auto &bug : bugs) {
    const bool is_new = IsNew(input, bug);
    const corpus::StoredFinding &lead = bug.members.front();
    const corpus::StoredFinding *delivered = Delivered(bug);
    rows += fmt::format("<tr class=\"{}\"><td>{}</td><td><a href=\"#{}\">{}</a></td><td>{}</td>"
                        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        is_new ? "new" : "known", Escape(StatusOf(input, bug)), Escape(bug.id),
                        Escape(bug.id), Escape(KindOf(bug)), Escape(lead.finding.summary),
                        bug.members.size(), bug.hit_ids.size(), Escape(bug.last_seen),
                        delivered ? Escape(DeliveryLine(*delivered->delivery)) : "");
    // The draft first: what a maintainer files; the unreduced evidence below it.
    std::string draft;
    if (const auto why = delivered ? WhyNoDraft(*delivered->delivery) : std::nullopt) {
      draft = fmt::format("<div class=\"draft\"><p><b>no issue draft</b> ({}): {}</p></div>",
                          Escape(DeliveryLine(*delivered->delivery)), Escape(*why));
    } else if (delivered) {
      const std::string text = IssueDraft(*delivered, *delivered->delivery);
      draft = fmt::format(
          "<div class=\"draft\"><p><b>issue draft</b> ({0}) <button type=\"button\" "
          "onclick=\"copyDraft('draft-{1}', this)\">Copy</button></p><pre class=\"draft\" "
          "id=\"draft-{1}\">{2}</pre></div>",
          Escape(DeliveryLine(*delivered->delivery)), Escape(bug.id), Escape(text));
    }
    std::string lines, signatures;
    for (const auto &member : bug.members) {
      // `fuzz --baseline-torch`: what the member's case did on another release.
      std::string labels;
      for (const auto &baseline : member.baselines)
        if (baseline.is_object() && !baseline.value("label", "").empty())
          labels += fmt::format("; <b>{}</b>", Escape(baseline.value("label", "")));
      signatures += fmt::format(
          "<li><code>{}</code> ({}, {} hit(s){})</li>", Escape(member.signature),
          Escape(std::string(corpus::DetectorOf(member.finding.kind))), member.HitCount(), labels);
      for (const auto &excerpt : Excerpts(member))
        lines += fmt::format("<div class=\"line\"><span class=\"where\">{}:{}</span> "
                             "<mark>{}</mark></div>",
                             Escape(excerpt.file), excerpt.line, Escape(excerpt.text));
    }
    const std::string repro = ReadOrEmpty(lead.smallest / "repro.py");
    details += fmt::format(
        "<section class=\"bug\" id=\"{0}\"><h3>{0}</h3>{9}{1}"
        "<p><b>signatures</b></p><ul>{2}</ul><p><b>diagnostic</b> <code>{3}</code></p>"
        "<pre class=\"message\">{4}</pre>{5}<details{6}><summary>repro script ({7})</summary>"
        "<pre class=\"repro\">{8}</pre></details></section>\n",
        Escape(bug.id), KeysHtml(bug), signatures, Escape(lead.finding.diagnostic),
        Escape(lead.finding.message.substr(0, 4000)),
        lines.empty() ? "" : "<div class=\"source\">" + lines + "</div>", is_new ? " open" : "",
        Escape((lead.smallest / "repro.py").string()), Escape(repro), draft);
  }
  std::string by_status;
  for (const auto &[status, count] : stats.by_status)
    by_status += fmt::format("<li>{}: {}</li>", Escape(status), count);
  return fmt::format(
      R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>inductor-fuzz campaign</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #1f2328; }}
table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }}
tr.new td:first-child {{ color: #d1242f; font-weight: bold; }}
pre {{ background: #f6f8fa; padding: 8px; overflow-x: auto; max-height: 30em; }}
mark {{ background: #fff8c5; font-family: monospace; }}
.numbers li {{ display: inline-block; margin-right: 2em; }}
div.draft {{ border: 2px solid #1f883d; padding: 4px 12px; margin: 8px 0; }}
pre.draft {{ white-space: pre-wrap; max-height: 40em; }}
</style>
<script>
function copyDraft(id, button) {{
  const text = document.getElementById(id).textContent;
  const done = () => {{ button.textContent = "Copied"; }};
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(done);
  else {{ const area = document.createElement("textarea"); area.value = text;
    document.body.appendChild(area); area.select(); document.execCommand("copy"); area.remove(); done(); }}
}}
</script></head><body>
<h1>inductor-fuzz campaign</h1>
<p>{0}</p>{13}
<ul class="numbers" id="numbers"><li>cases: <b id="cases">{1}</b></li><li>new bugs: <b id="new-bugs">{2}</b></li><li>bugs: {10}</li><li>distinct signatures: {3}</li><li>worker restarts: {4}</li><li>{5:.0f} s</li><li>reduction: {11:.0f} s ({12} bug(s))</li>{6}</ul>
{7}
{14}
{15}
<h2>Bugs</h2>
<table id="bugs"><thead><tr><th>status</th><th>bug</th><th>kind</th><th>summary</th><th>signatures</th><th>hits</th><th>last seen</th><th>reduced</th></tr></thead>
<tbody>
{8}</tbody></table>
<h2>Details</h2>
{9}
</body></html>
)",
      Escape(fmt::format(
          "torch {}, tool {}, seed {}, shard {}: {}", input.provenance.value("torch_version", "?"),
          input.provenance.value("tool_version", "?"),
          input.provenance.value("seed", json()).dump(), input.provenance.value("shard", "0of1"),
          input.provenance.value("command_line", ""))),
      stats.cases, fresh, stats.signatures.size(), stats.worker_restarts, stats.seconds, by_status,
      SvgTimeline(stats), rows, details, bugs.size(), stats.reduction_seconds, stats.reduced_bugs,
      SinceLine(input.since), SurfaceHtml(SurfaceTableOf(stats)), TimeTableHtml(stats));
}

std::set<std::string> NewBugSignatures(const CampaignStats &stats) {
  std::set<std::string> ids;
  for (const auto &bug : stats.Bugs())
    if (bug.is_new)
      ids.insert(bug.signatures.begin(), bug.signatures.end());
  return ids;
}

std::string JunitReport(const ReportInput &input) { return JunitReport(input, Ordered(input)); }
json SarifReport(const ReportInput &input) { return SarifReport(input, Ordered(input)); }
std::string HtmlReport(const ReportInput &input) { return HtmlReport(input, Ordered(input)); }

void WriteReports(const fs::path &dir, const ReportInput &input) {
  // The bugs grouped once, for every format.
  const std::vector<corpus::Bug> ordered = Ordered(input);
  fs::create_directories(dir);
  json findings = json::array(), bugs = json::array();
  std::size_t fresh = 0;
  for (const auto &bug : ordered) {
    json summary = bug.Summary();
    summary["new"] = IsNew(input, bug);
    fresh += IsNew(input, bug);
    json campaign_hits = json::array(); // this campaign's cases, once each
    std::set<std::string> seen;
    for (const auto &member : bug.members)
      if (const auto hits = input.stats.hits_of.find(member.id); hits != input.stats.hits_of.end())
        for (const auto &hit : hits->second)
          if (seen.insert(hit.dump()).second)
            campaign_hits.push_back(hit);
    const auto *known = bug.Known(input.known_issues);
    summary["known_issue"] =
        known ? json{{"id", known->id}, {"status", known->status}, {"link", known->link}} : json();
    summary["campaign_hits"] = campaign_hits;
    summary["joined_bugs"] = bug.joined; // the corpus's bugs this one holds (one known issue)
    if (const auto *delivered = Delivered(bug)) {
      summary["delivery"] = corpus::DeliveryToJson(*delivered->delivery);
      const auto why = WhyNoDraft(*delivered->delivery);
      summary["issue_draft"] = why ? json() : json((delivered->folder / "issue.md").string());
      summary["no_issue_draft"] = why ? json(*why) : json();
      summary["reduced_repro"] = (delivered->folder / "reduced" / "repro.py").string();
    } else {
      summary["delivery"] = json();
    }
    bugs.push_back(summary);
    for (const auto &member : bug.members) {
      json finding = member.Summary();
      finding["bug"] = bug.id;
      finding["new"] = IsNew(input, bug);
      const auto *member_known = input.known_issues.Match(member.signature, member.key);
      finding["known_issue"] = member_known ? json{{"id", member_known->id},
                                                   {"status", member_known->status},
                                                   {"link", member_known->link}}
                                            : json();
      findings.push_back(finding);
    }
  }
  const json summary = {{"format_version", 2},
                        {"provenance", input.provenance},
                        {"campaign", StatsToJson(input.stats)},
                        {"since", input.since},
                        {"surface", SurfaceTableOf(input.stats).ToJson()},
                        {"new_bugs", fresh},
                        {"bugs", bugs},
                        {"findings", findings}};
  support::WriteFileAtomically(dir / "summary.json", summary.dump(2) + "\n");
  support::WriteFileAtomically(dir / "junit.xml", JunitReport(input, ordered));
  support::WriteFileAtomically(dir / "findings.sarif", SarifReport(input, ordered).dump(2) + "\n");
  support::WriteFileAtomically(dir / "report.html", HtmlReport(input, ordered));
}

} // namespace fuzzer::campaign
