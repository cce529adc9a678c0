#include "corpus/surface_table.h"

#include "corpus/field_reader.h"
#include "corpus/record_fields.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>

namespace corpus {

using nlohmann::json;

namespace {

constexpr std::string_view kCastPrefix = "to_dtype->";

std::string PathColumn(const std::string &path) { return path == "vector_tail" ? "vector" : path; }

} // namespace

std::set<std::string> CountedPaths(const std::string &state) {
  if (state == "supported" || state == "structural")
    return {"scalar", "vector"};
  if (state == "scalar-only")
    return {"scalar"};
  if (state == "vector-only")
    return {"vector"};
  return {};
}

std::string SurfaceFeature(std::string_view op, std::string_view dtype, std::string_view path) {
  return fmt::format("{}{}:{}:{}", kSurfaceFeaturePrefix, op, dtype, path);
}

namespace {

const RecordFields<SurfaceUniverse::Op> &OpFields() {
  static const RecordFields<SurfaceUniverse::Op> fields = {
      MemberField("op", &SurfaceUniverse::Op::name),
      MemberField("vectorized", &SurfaceUniverse::Op::vectorized),
      MemberField("dtypes", &SurfaceUniverse::Op::dtypes)};
  return fields;
}

// The worker's reply is read leniently (it carries more than the table needs, as `paths`); a
// universe without `derived_from` is an older worker's, derived from eager, and one without
// `dtypes` lists its ops' dtypes in the order they first appear.
const RecordFields<SurfaceUniverse> &UniverseFields() {
  static const RecordFields<SurfaceUniverse> fields = {
      CustomField<SurfaceUniverse>(
          "format_version", [](const SurfaceUniverse &) { return FieldJson(1); },
          [](FieldReader &reader, const std::string &key, SurfaceUniverse &) {
            if (reader.Optional(key))
              reader.Integer(key, 1);
          }),
      MemberField("torch_version", &SurfaceUniverse::torch_version),
      CustomField<SurfaceUniverse>(
          "derived_from",
          [](const SurfaceUniverse &universe) { return FieldJson(universe.derived_from); },
          [](FieldReader &reader, const std::string &key, SurfaceUniverse &universe) {
            universe.derived_from = reader.Optional(key) ? reader.String(key) : "eager";
          }),
      ListField("ops", &SurfaceUniverse::ops, &OpFields, UnknownFields::kIgnored),
      CustomField<SurfaceUniverse>(
          "dtypes", [](const SurfaceUniverse &universe) { return FieldJson(universe.dtypes); },
          [](FieldReader &reader, const std::string &key, SurfaceUniverse &universe) {
            if (reader.Optional(key)) {
              universe.dtypes = reader.Strings(key);
              return;
            }
            universe.dtypes.clear();
            for (const auto &op : universe.ops)
              for (const auto &[dtype, state] : op.dtypes)
                if (std::find(universe.dtypes.begin(), universe.dtypes.end(), dtype) ==
                    universe.dtypes.end())
                  universe.dtypes.push_back(dtype);
          })};
  return fields;
}

} // namespace

SurfaceUniverse SurfaceUniverseFromJson(const json &document) {
  FieldReader reader(document, "", "the surface universe");
  SurfaceUniverse universe;
  ReadFields(UniverseFields(), reader, universe, UnknownFields::kIgnored);
  return universe;
}

json SurfaceUniverseToJson(const SurfaceUniverse &universe) {
  return WriteFields(UniverseFields(), universe);
}

std::filesystem::path SurfaceUniversePath(const std::filesystem::path &corpus_dir) {
  return corpus_dir / "surface-universe.json";
}

void WriteSurfaceUniverse(const std::filesystem::path &corpus_dir,
                          const SurfaceUniverse &universe) {
  support::WriteFileAtomically(SurfaceUniversePath(corpus_dir),
                               SurfaceUniverseToJson(universe).dump(1) + "\n");
}

std::optional<SurfaceUniverse> ReadSurfaceUniverse(const std::filesystem::path &corpus_dir) {
  const auto path = SurfaceUniversePath(corpus_dir);
  if (!std::filesystem::exists(path))
    return std::nullopt;
  const json document =
      json::parse(support::ReadTextFile(path, "surface universe", 16 << 20), nullptr, false);
  if (document.is_discarded())
    throw FormatError(fmt::format("{} is not JSON; delete it and the next campaign writes it again",
                                  path.string()));
  try {
    return SurfaceUniverseFromJson(document);
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

SurfaceTable SurfaceTableOf(const std::set<std::string> &features,
                            const std::optional<SurfaceUniverse> &universe) {
  SurfaceTable table;
  table.universe = universe;
  for (const auto &feature : features) {
    if (!feature.starts_with(kSurfaceFeaturePrefix))
      continue;
    // surface:OP:DTYPE:PATH; an op never holds ':'.
    const std::string rest = feature.substr(kSurfaceFeaturePrefix.size());
    const auto first = rest.find(':'), second = rest.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos)
      continue;
    const std::string op = rest.substr(0, first),
                      dtype = rest.substr(first + 1, second - first - 1),
                      path = rest.substr(second + 1);
    if (path == "cast" && op.starts_with(kCastPrefix))
      table.casts.emplace(dtype, op.substr(kCastPrefix.size()));
    else
      table.reached[op][dtype].insert(PathColumn(path));
  }
  return table;
}

std::string SurfaceTable::StateOf(const std::string &op, const std::string &dtype) const {
  const auto row = reached.find(op);
  if (row == reached.end())
    return "none";
  const auto cell = row->second.find(dtype);
  if (cell == row->second.end())
    return "none";
  const bool scalar = cell->second.contains("scalar"), vector = cell->second.contains("vector");
  return scalar && vector ? "both" : vector ? "vector" : scalar ? "scalar" : "none";
}

std::size_t SurfaceTable::SupportedCells() const {
  std::size_t cells = 0;
  std::set<std::pair<std::string, std::string>> counted;
  if (universe)
    for (const auto &op : universe->ops)
      for (const auto &[dtype, state] : op.dtypes) {
        std::set<std::string> paths = CountedPaths(state);
        // A path the probe did not see but a campaign reached is reachable after all.
        if (const auto row = reached.find(op.name); row != reached.end())
          if (const auto cell = row->second.find(dtype); cell != row->second.end())
            paths.insert(cell->second.begin(), cell->second.end());
        cells += paths.size();
        counted.emplace(op.name, dtype);
      }
  for (const auto &[op, dtypes] : reached)
    for (const auto &[dtype, paths] : dtypes)
      if (!counted.contains({op, dtype}))
        cells += paths.size();
  return cells;
}

std::size_t SurfaceTable::ReachedSupportedCells() const {
  std::size_t cells = 0;
  for (const auto &[op, dtypes] : reached)
    for (const auto &[dtype, paths] : dtypes)
      cells += paths.size();
  return cells;
}

json SurfaceTable::ToJson() const {
  json rows = json::array();
  std::set<std::string> listed;
  auto row_of = [&](const std::string &name, bool vectorized,
                    const std::map<std::string, std::string> &states) {
    json cells = json::object();
    std::set<std::string> dtypes;
    for (const auto &[dtype, state] : states)
      dtypes.insert(dtype);
    if (const auto found = reached.find(name); found != reached.end())
      for (const auto &[dtype, paths] : found->second)
        dtypes.insert(dtype);
    for (const auto &dtype : dtypes) {
      const auto state = states.find(dtype);
      cells[dtype] = {{"eager", state == states.end() ? "unknown" : state->second},
                      {"reached", StateOf(name, dtype)}};
    }
    listed.insert(name);
    return json{{"op", name}, {"vectorized", vectorized}, {"cells", cells}};
  };
  if (universe)
    for (const auto &op : universe->ops)
      rows.push_back(row_of(op.name, op.vectorized, op.dtypes));
  for (const auto &[op, dtypes] : reached)
    if (!listed.contains(op))
      rows.push_back(row_of(op, false, {}));
  json cast_list = json::array();
  for (const auto &[from, to] : casts)
    cast_list.push_back({from, to});
  const std::size_t supported = SupportedCells(), hit = ReachedSupportedCells();
  return {{"torch_version", universe ? json(universe->torch_version) : json()},
          {"derived_from", universe ? json(universe->derived_from) : json()},
          {"dtypes", universe ? json(universe->dtypes) : json::array()},
          {"cells", supported},
          {"reached", hit},
          {"share", supported ? static_cast<double>(hit) / static_cast<double>(supported) : 0.0},
          {"rows", rows},
          {"casts", cast_list}};
}

} // namespace corpus
