#include "corpus/delivery.h"

#include "corpus/field_reader.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace corpus {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<DeliveryStatus, std::string_view>, 5> kStatusNames{{
    {DeliveryStatus::kPending, "pending"},
    {DeliveryStatus::kReduced, "reduced"},
    {DeliveryStatus::kTimeout, "timeout"},
    {DeliveryStatus::kNotReproducible, "not-reproducible"},
    {DeliveryStatus::kFailed, "failed"},
}};

DeliveryStatus StatusFromName(const std::string &name) {
  for (const auto &[status, status_name] : kStatusNames)
    if (status_name == name)
      return status;
  throw FormatError(fmt::format("field 'status' is '{}', not one of pending, reduced, timeout, "
                                "not-reproducible, failed",
                                name));
}

} // namespace

bool ReductionUnfinished(const Delivery &delivery) {
  return delivery.status == DeliveryStatus::kTimeout && delivery.repro_lines > kDraftReproLines;
}

std::string_view DeliveryStatusName(DeliveryStatus status) {
  for (const auto &[known, name] : kStatusNames)
    if (known == status)
      return name;
  return "pending";
}

json DeliveryToJson(const Delivery &delivery) {
  json releases = json::array();
  for (const auto &run : delivery.releases)
    releases.push_back(
        {{"torch", run.torch}, {"venv", run.venv}, {"result", run.result}, {"how", run.how}});
  return {{"format_version", kDeliveryFormatVersion},
          {"bug", delivery.bug},
          {"finding_id", delivery.finding_id},
          {"signature", delivery.signature},
          {"status", DeliveryStatusName(delivery.status)},
          {"detail", delivery.detail},
          {"reduce_seconds", delivery.reduce_seconds},
          {"repro_lines", delivery.repro_lines},
          {"reproduces_standalone", delivery.reproduces_standalone},
          {"standalone_how", delivery.standalone_how},
          {"standalone_output", delivery.standalone_output},
          {"releases", releases},
          {"release_label", delivery.release_label},
          {"environment", delivery.environment},
          {"tool_version", delivery.tool_version},
          {"command_line", delivery.command_line},
          {"time", delivery.time}};
}

Delivery DeliveryFromJson(const json &document) {
  FieldReader fields(document, "", "delivery.json");
  if (fields.Integer("format_version", 1) > kDeliveryFormatVersion)
    throw FormatError("delivery.json was written by a newer inductor-fuzz: update the tool");
  Delivery delivery{.bug = fields.String("bug"),
                    .finding_id = fields.String("finding_id"),
                    .signature = fields.String("signature"),
                    .status = StatusFromName(fields.String("status")),
                    .detail = fields.String("detail"),
                    .reduce_seconds = fields.Number("reduce_seconds"),
                    .repro_lines = static_cast<std::size_t>(fields.Integer("repro_lines", 0)),
                    .reproduces_standalone = fields.Boolean("reproduces_standalone"),
                    .standalone_how = fields.String("standalone_how"),
                    .standalone_output = fields.String("standalone_output"),
                    .release_label = fields.String("release_label"),
                    .environment = fields.Required("environment"),
                    .tool_version = fields.String("tool_version"),
                    .command_line = fields.String("command_line"),
                    .time = fields.String("time")};
  const json &releases = fields.Required("releases");
  if (!releases.is_array())
    throw FormatError("field 'releases' must be a list");
  for (std::size_t i = 0; i < releases.size(); ++i) {
    FieldReader run(releases[i], fmt::format("releases[{}]", i), "delivery.json");
    delivery.releases.push_back({.torch = run.String("torch"),
                                 .venv = run.String("venv"),
                                 .result = run.String("result"),
                                 .how = run.String("how")});
    run.RejectUnknown();
  }
  if (!delivery.environment.is_object())
    throw FormatError("field 'environment' must be an object");
  fields.RejectUnknown();
  return delivery;
}

std::optional<Delivery> ReadDelivery(const std::filesystem::path &finding_folder) {
  const auto file = finding_folder / "delivery.json";
  if (!std::filesystem::exists(file))
    return std::nullopt;
  try {
    return DeliveryFromJson(ReadJsonDocument(file, "delivery", "delete it to deliver again"));
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", file.string(), error.what()));
  }
}

void WriteDelivery(const std::filesystem::path &finding_folder, const Delivery &delivery) {
  support::WriteFileAtomically(finding_folder / "delivery.json",
                               DeliveryToJson(delivery).dump(2) + "\n");
}

std::string ReleaseLabel(const std::vector<ReleaseRun> &releases) {
  if (releases.size() < 2)
    return "";
  // Walk back from the newest release while it fails the same way.
  std::size_t oldest_failing = releases.size();
  for (std::size_t i = releases.size(); i-- > 0;) {
    if (releases[i].result != "fails")
      break;
    oldest_failing = i;
  }
  if (oldest_failing == releases.size())
    return "";
  if (oldest_failing == 0)
    return "also in " + releases.front().torch;
  const auto &before = releases[oldest_failing - 1];
  if (before.result == "passes")
    return fmt::format("regression since {} (passes on {})", releases[oldest_failing].torch,
                       before.torch);
  return fmt::format("fails from {} on ({} fails differently)", releases[oldest_failing].torch,
                     before.torch);
}

} // namespace corpus
