#include "fuzzer/campaign/surface_report.h"

#include "support/text_file.h"

#include <fmt/format.h>

#include <set>

namespace fuzzer::campaign {

namespace {

// One letter per cell, so that the table reads in a terminal's copy too.
struct CellLook {
  const char *css;
  const char *text;
};

CellLook LookOf(const std::string &eager, const std::string &reached) {
  if (reached == "both")
    return {"both", "SV"};
  if (reached == "vector")
    return {"vector", "V"};
  if (reached == "scalar")
    return {"scalar", "S"};
  if (eager == "unsupported")
    return {"unsupported", "&times;"};
  if (corpus::CountedPaths(eager).empty())
    return {"promoted", "&middot;"}; // promoted, folded, internal, not emitted by Inductor
  if (eager == "scalar-only")
    return {"none", "s"};
  return {"none", ""};
}

} // namespace

corpus::SurfaceTable SurfaceTableOf(const CampaignStats &stats) {
  std::optional<corpus::SurfaceUniverse> universe;
  if (stats.surface_universe.is_object()) {
    try {
      universe = corpus::SurfaceUniverseFromJson(stats.surface_universe);
    } catch (const std::exception &) { // recorded by this tool; a table without it still reads
    }
  }
  return corpus::SurfaceTableOf(stats.features, universe);
}

std::string SurfaceHtml(const corpus::SurfaceTable &table) {
  const auto document = table.ToJson();
  std::vector<std::string> dtypes = document["dtypes"].get<std::vector<std::string>>();
  std::set<std::string> listed(dtypes.begin(), dtypes.end());
  for (const auto &row : document["rows"])
    for (const auto &[dtype, cell] : row["cells"].items())
      if (listed.insert(dtype).second)
        dtypes.push_back(dtype);
  std::string header;
  for (const auto &dtype : dtypes)
    header += fmt::format("<th>{}</th>", support::EscapeMarkup(dtype));
  std::string rows;
  for (const auto &row : document["rows"]) {
    bool interesting = false; // rows of ops no program can reach are left out
    std::string cells;
    for (const auto &dtype : dtypes) {
      const auto &all = row["cells"];
      const std::string eager = all.contains(dtype) ? all[dtype].value("eager", "unknown") : "";
      const std::string reached = all.contains(dtype) ? all[dtype].value("reached", "none") : "";
      interesting = interesting || (!reached.empty() && reached != "none") ||
                    !corpus::CountedPaths(eager).empty();
      const CellLook look = LookOf(eager, reached);
      cells += fmt::format(
          "<td class=\"{}\" title=\"{} {}: {}\">{}</td>", look.css,
          support::EscapeMarkup(row["op"].get<std::string>()), support::EscapeMarkup(dtype),
          support::EscapeMarkup(eager + ", " + (reached.empty() ? "none" : reached)), look.text);
    }
    if (interesting)
      rows += fmt::format(
          "<tr><th>{}{}</th>{}</tr>\n", support::EscapeMarkup(row["op"].get<std::string>()),
          row.value("vectorized", false) ? "" : " <small>(scalar only)</small>", cells);
  }
  std::string casts;
  for (const auto &pair : document["casts"])
    casts += fmt::format("{}&rarr;{} ", support::EscapeMarkup(pair[0].get<std::string>()),
                         support::EscapeMarkup(pair[1].get<std::string>()));
  return fmt::format(
      R"(<h2 id="surface">Op surface</h2>
<p>Inductor's C++ overrides by the dtype they saw (torch {0}): <b id="surface-share">{1:.1f}%</b> of
{2} (op, dtype, path) cells Inductor emits reached ({3}). S scalar, V vector (body or tail), SV
both; s not reached, and Inductor emits it in scalar code only; &times; eager does not support it;
&middot; computed in another dtype, folded, or lowered by Inductor to other ops.</p>
<style>
table.surface td, table.surface th {{ padding: 1px 4px; font-size: 12px; text-align: center; }}
table.surface td.both {{ background: #1f883d; color: white; }}
table.surface td.vector {{ background: #54aeff; }}
table.surface td.scalar {{ background: #fff8c5; }}
table.surface td.unsupported {{ background: #d0d7de; color: #57606a; }}
table.surface td.promoted {{ background: #f6f8fa; color: #8c959f; }}
</style>
<table class="surface" id="surface-table"><thead><tr><th>op</th>{4}</tr></thead><tbody>
{5}</tbody></table>
<p><b>casts reached</b> ({6}): {7}</p>
)",
      support::EscapeMarkup(document["torch_version"].is_string()
                                ? document["torch_version"].get<std::string>()
                                : "unknown"),
      100.0 * document["share"].get<double>(), document["cells"].get<std::size_t>(),
      document["reached"].get<std::size_t>(), header, rows, document["casts"].size(), casts);
}

} // namespace fuzzer::campaign
